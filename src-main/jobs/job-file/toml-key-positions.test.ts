import { parse } from 'smol-toml';
import { describe, expect, test } from 'vitest';
import { locateTomlKeys, type KeyPath } from './toml-key-positions';

const DOC = [
  '# a comment with [brackets] and key = "value"', //  1
  '[job]', //  2
  'name = "a # not a comment"', //  3
  "run = '''", //  4
  'x = 1', //  5 (inside a multi-line string)
  "'''", //  6
  'outputs = [', //  7
  '  "a", # ]', //  8
  '  "b\\"]",', //  9
  ']', // 10
  'env = { A = "1", "B C" = { secret = true, value = "}" } }', // 11
  '[ job . workspace ]', // 12
  'exclude = ["x"]', // 13
  '[[runs]]', // 14
  'n = 1', // 15
  '[[runs]]', // 16
  'n = 2', // 17
  'a.b."c.d" = 1', // 18
].join('\n');

describe('locateTomlKeys', () => {
  const keys = locateTomlKeys(DOC);

  test('the fixture is valid TOML, as the locator requires', () => {
    expect(() => parse(DOC)).not.toThrow();
  });

  test.each<[KeyPath, number, number]>([
    [['job'], 2, 1],
    [['job', 'name'], 3, 1],
    [['job', 'run'], 4, 1],
    [['job', 'outputs'], 7, 1],
    [['job', 'outputs', 0], 8, 3],
    [['job', 'outputs', 1], 9, 3],
    [['job', 'env'], 11, 1],
    [['job', 'env', 'A'], 11, 9],
    [['job', 'env', 'B C'], 11, 18],
    [['job', 'env', 'B C', 'value'], 11, 43],
    [['job', 'workspace'], 12, 1],
    [['job', 'workspace', 'exclude'], 13, 1],
    [['runs'], 14, 1],
    [['runs', 1, 'n'], 17, 1],
    [['runs', 1, 'a', 'b', 'c.d'], 18, 5],
  ])('%j is at %i:%i', (path, line, column) => {
    expect(keys.at(path)).toEqual({ line, column });
  });

  test('keys inside strings and comments are not keys', () => {
    expect(keys.at(['job', 'x'])).toBeUndefined();
    expect(keys.at(['key'])).toBeUndefined();
  });

  test('nearest falls back to the closest written parent', () => {
    expect(keys.nearest(['job', 'setup'])).toEqual({ line: 2, column: 1 });
    expect(keys.nearest(['pool', 'count'])).toBeUndefined();
  });

  test('CRLF line ends count as one line break', () => {
    expect(locateTomlKeys('[job]\r\nname = "x"\r\n  run = "y"').at(['job', 'run'])).toEqual({
      line: 3,
      column: 3,
    });
  });
});

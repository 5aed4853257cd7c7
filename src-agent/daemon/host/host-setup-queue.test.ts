import { describe, expect, it } from 'vitest';
import type { HostSetupEntry } from '../../wire/protocol';
import {
  entriesToSeed,
  entryTitle,
  exitText,
  isDrained,
  nextId,
  nextToRun,
  positionOf,
} from './host-setup-queue';

function entry(id: number, patch: Partial<HostSetupEntry> = {}): HostSetupEntry {
  return {
    id,
    script: `cmd${id}`,
    refreshCapabilities: false,
    origin: 'declared',
    declIndex: id - 1,
    state: 'pending',
    pid: null,
    code: null,
    signal: null,
    addedAt: 0,
    startedAt: null,
    exitedAt: null,
    firstSeq: null,
    lastSeq: null,
    ...patch,
  };
}

const exited = (id: number, patch: Partial<HostSetupEntry> = {}) =>
  entry(id, { state: 'exited', code: 0, ...patch });

describe('entriesToSeed: the declared entries a daemon adds at start', () => {
  // [what, recorded, declared, scripts added (with their declIndex)]
  // prettier-ignore
  const cases: [string, HostSetupEntry[], string[], [string, number][]][] = [
    ['a fresh node gets every declared entry, in order', [], ['a', 'b', 'c'], [['a', 0], ['b', 1], ['c', 2]]],
    ['nothing declared, nothing added', [], [], []],
    ['a restart adds nothing that is recorded, done or not', [exited(1, { script: 'a' }), entry(2, { script: 'b', declIndex: 1 })], ['a', 'b'], []],
    ['a running entry counts as recorded', [entry(1, { script: 'a', state: 'running' })], ['a'], []],
    ['an entry recorded before the crash is not added again; the rest is', [exited(1, { script: 'a' })], ['a', 'b'], [['b', 1]]],
    ['the same script twice in the declaration is two entries', [exited(1, { script: 'a' })], ['a', 'a'], [['a', 1]]],
    ['an appended entry with the same script does not stand for a declared one', [exited(1, { script: 'a', origin: 'appended' })], ['a'], [['a', 0]]],
    ['a declaration that changed at an index adds the new script there', [exited(1, { script: 'a' })], ['z'], [['z', 0]]],
    ['order matters: a swapped pair is two new entries', [exited(1, { script: 'a', declIndex: 0 }), exited(2, { script: 'b', declIndex: 1 })], ['b', 'a'], [['b', 0], ['a', 1]]],
  ];
  it.each(cases)('%s', (_what, recorded, declared, added) => {
    const seeded = entriesToSeed(recorded, declared);
    expect(seeded.map((e) => [e.script, e.declIndex])).toEqual(added);
    expect(seeded.every((e) => e.origin === 'declared')).toBe(true);
  });

  it('takes name and refresh_capabilities from the options at the same index and script', () => {
    const seeded = entriesToSeed(
      [],
      ['install-cuda', 'warm-cache'],
      [
        { script: 'install-cuda', name: 'cuda', refreshCapabilities: true },
        { script: 'something else', refreshCapabilities: true },
      ],
    );
    expect(seeded).toEqual([
      {
        script: 'install-cuda',
        name: 'cuda',
        refreshCapabilities: true,
        origin: 'declared',
        declIndex: 0,
      },
      { script: 'warm-cache', refreshCapabilities: false, origin: 'declared', declIndex: 1 },
    ]);
  });
});

describe('the FIFO order', () => {
  // [what, entries, id of the next entry to start (null: none now)]
  // prettier-ignore
  const cases: [string, HostSetupEntry[], number | null][] = [
    ['empty', [], null],
    ['the oldest pending one', [entry(2), entry(1), entry(3)], 1],
    ['none while one runs', [entry(1, { state: 'running' }), entry(2)], null],
    ['after the exited ones, failed included', [exited(1, { code: 100 }), exited(2), entry(3)], 3],
    ['none once everything exited', [exited(1), exited(2)], null],
  ];
  it.each(cases)('next to run: %s', (_what, entries, id) => {
    expect(nextToRun(entries)?.id ?? null).toBe(id);
  });

  // [entries, id, position]
  // prettier-ignore
  const positions: [HostSetupEntry[], number, number][] = [
    [[entry(1)], 1, 0],
    [[entry(1, { state: 'running' }), entry(2), entry(3)], 3, 2],
    [[exited(1), entry(2, { state: 'running' }), entry(3)], 3, 1],
    [[exited(1), exited(2), entry(3)], 3, 0],
  ];
  it.each(positions)(
    'position of an entry counts the unfinished ones ahead (%#)',
    (entries, id, position) => {
      expect(positionOf(entries, id)).toBe(position);
    },
  );

  it('is drained when every entry exited, whatever its code', () => {
    expect(isDrained([])).toBe(true);
    expect(isDrained([exited(1, { code: 1 }), exited(2, { code: null, signal: 'SIGKILL' })])).toBe(
      true,
    );
    expect(isDrained([exited(1), entry(2)])).toBe(false);
    expect(isDrained([entry(1, { state: 'running' })])).toBe(false);
  });

  it('numbers new entries after the highest id', () => {
    expect(nextId([])).toBe(1);
    expect(nextId([exited(1), entry(7)])).toBe(8);
  });
});

describe('log section lines', () => {
  it('titles an entry by id, name and first line', () => {
    expect(entryTitle({ id: 1, script: 'apt-get install -y ffmpeg' })).toBe(
      'host_setup[1] apt-get install -y ffmpeg',
    );
    expect(entryTitle({ id: 2, script: 'a\nb', name: 'two lines' })).toBe(
      'host_setup[2] (two lines) a …',
    );
  });

  it('says how an entry ended', () => {
    expect(exitText({ code: 100, signal: null })).toBe('exited with code 100');
    expect(exitText({ code: null, signal: 'SIGTERM' })).toBe('was killed by SIGTERM');
    expect(exitText({ code: null, signal: null })).toBe('ended; its exit code is unknown');
  });
});

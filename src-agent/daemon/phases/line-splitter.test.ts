import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter';

function split(chunks: (string | Buffer)[], max?: number): string[] {
  const lines: string[] = [];
  const s = new LineSplitter((l) => lines.push(l), max);
  for (const c of chunks) s.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  s.flush();
  return lines;
}

describe('LineSplitter', () => {
  it('splits on \\n across chunks, keeps \\r and empty lines, flushes the tail', () => {
    expect(split(['a\nb', 'c\r\n\n', '10%\r20%\r', '100%'])).toEqual([
      'a',
      'bc\r',
      '',
      '10%\r20%\r100%',
    ]);
  });

  it('cuts lines over the limit without splitting a UTF-8 character', () => {
    const lines = split(['aaaé€bb\n'], 5);
    expect(lines.join('')).toBe('aaaé€bb');
    for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(5);
    expect(lines).toEqual(['aaaé', '€bb']);
  });

  it('emits nothing for no output', () => {
    expect(split([])).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { createRedactor } from './redact';
import { StreamRedactor } from './stream-redact';
import { LineSplitter } from '../phases/line-splitter';

const SECRET = 'Zq8Kv3Wm7Rj2Tx5Ny9Pb';
/** The leak criterion: no piece of the secret of 4 characters or more. A cut splits a
 *  20-character secret into two pieces, one of them at least 10 long, so any cut that
 *  splits it is caught; the text around it ('.', 'a-z ') shares no 4 characters with it. */
const FRAGMENT = 4;

function fragmentsIn(text: string, secret = SECRET): string[] {
  const found = new Set<string>();
  for (let i = 0; i + FRAGMENT <= secret.length; i++) {
    const piece = secret.slice(i, i + FRAGMENT);
    if (text.includes(piece)) found.add(piece);
  }
  return [...found];
}

/** The stream through the redactor, chunk by chunk, then flushed. */
function through(chunks: Buffer[], secrets = [SECRET]): string {
  const r = new StreamRedactor(createRedactor(secrets));
  const out = chunks.map((c) => r.push(c));
  out.push(r.flush());
  return Buffer.concat(out).toString('utf8');
}

describe('StreamRedactor', () => {
  const text = `before ${SECRET} after\nline two ${SECRET}`;
  const bytes = Buffer.from(text);

  it.each([...Array(bytes.length + 1).keys()])('redacts a secret cut at byte %i', (at) => {
    const out = through([bytes.subarray(0, at), bytes.subarray(at)]);
    expect(out).toBe('before *** after\nline two ***');
  });

  it('redacts a secret that arrives one byte at a time', () => {
    const out = through([...bytes].map((b) => Buffer.from([b])));
    expect(out).toBe('before *** after\nline two ***');
  });

  it('redacts a multi-byte secret cut inside a character', () => {
    const secret = 'clé-secrète-日本語';
    const b = Buffer.from(`x${secret}y`);
    for (let at = 0; at <= b.length; at++) {
      expect(through([b.subarray(0, at), b.subarray(at)], [secret])).toBe('x***y');
    }
  });

  it('holds back only what could start a secret, never past a newline', () => {
    const r = new StreamRedactor(createRedactor([SECRET]));
    expect(r.push(Buffer.from('done\n')).toString()).toBe('done\n');
    const long = 'a'.repeat(100);
    const out = r.push(Buffer.from(long)).toString();
    expect(out).toBe('a'.repeat(100 - (SECRET.length - 1)));
    expect(r.flush().toString()).toBe('a'.repeat(SECRET.length - 1));
  });

  it('leaves nothing of two overlapping secrets', () => {
    const a = 'alpha-bravo-charlie';
    const b = 'charlie-delta-echo';
    const out = through([Buffer.from('x alpha-bravo-charlie-delta-echo y')], [a, b]);
    expect(out).toBe('x *** y');
  });

  it('passes a stream through untouched, holding nothing, when there is no secret', () => {
    const r = new StreamRedactor(createRedactor([]));
    expect(r.push(Buffer.from('abc')).toString()).toBe('abc');
    expect(r.flush()).toHaveLength(0);
  });

  it('hands what it holds back to the redactor that replaces it', () => {
    const r = new StreamRedactor(createRedactor([SECRET])).handOver(createRedactor([SECRET]));
    const first = r.push(Buffer.from(`x ${SECRET.slice(0, 7)}`));
    const next = r.handOver(createRedactor([SECRET]));
    const out = Buffer.concat([
      first,
      next.push(Buffer.from(`${SECRET.slice(7)} y`)),
      next.flush(),
    ]);
    expect(out.toString()).toBe('x *** y');
  });
});

describe('a redacted stream split into lines with a cut', () => {
  const MAX = 64;
  it.each([...Array(SECRET.length + 1).keys()])(
    'keeps a secret that straddles the line cut by %i bytes out of every piece',
    (into) => {
      const line = '.'.repeat(MAX - into) + SECRET + '.'.repeat(10);
      const lines: string[] = [];
      const splitter = new LineSplitter((l) => lines.push(l), MAX);
      const r = new StreamRedactor(createRedactor([SECRET]));
      splitter.push(r.push(Buffer.from(`${line}\n`)));
      splitter.push(r.flush());
      splitter.flush();
      expect(lines.flatMap((l) => fragmentsIn(l))).toEqual([]);
      expect(lines.join('')).toBe(line.replace(SECRET, '***'));
    },
  );

  it('the criterion catches a split secret (the cut without stream redaction)', () => {
    const line = '.'.repeat(MAX - 10) + SECRET;
    const lines: string[] = [];
    const redact = createRedactor([SECRET]);
    const splitter = new LineSplitter((l) => lines.push(redact(l)), MAX);
    splitter.push(Buffer.from(line));
    splitter.flush();
    expect(lines.flatMap((l) => fragmentsIn(l)).length).toBeGreaterThan(0);
  });
});

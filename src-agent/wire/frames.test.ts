import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { frame, FrameReader, MAX_FRAME_BYTES } from './frames';

/** The bytes of `payloads` as frames, cut into pieces of `size` bytes. */
function pieces(payloads: Buffer[], size: number): Readable {
  const all = Buffer.concat(payloads.flatMap((p) => frame(p)));
  const out: Buffer[] = [];
  for (let at = 0; at < all.length; at += size) out.push(all.subarray(at, at + size));
  return Readable.from(out);
}

async function readAll(reader: FrameReader): Promise<string[]> {
  const got: string[] = [];
  for (let f = await reader.next(); f !== null; f = await reader.next()) got.push(f.toString());
  return got;
}

describe('frame', () => {
  test('a payload up to 64 KiB is one buffer with its head (one write), a larger one two', () => {
    const small = frame(Buffer.alloc(64 * 1024, 1));
    expect(small).toHaveLength(1);
    expect(small[0]!.readUInt32BE(0)).toBe(64 * 1024);
    const large = Buffer.alloc(64 * 1024 + 1, 2);
    const parts = frame(large);
    expect(parts).toHaveLength(2);
    expect(parts[0]!.readUInt32BE(0)).toBe(large.length);
    expect(parts[1]).toBe(large); // not copied
    expect(frame(Buffer.alloc(0))).toEqual([Buffer.from([0, 0, 0, 0])]);
  });
});

describe('FrameReader', () => {
  test.each([1, 3, 5, 4096])(
    'reads frames however the stream is cut (%i-byte pieces)',
    async (n) => {
      const payloads = [
        '{"op":"recv"}',
        'tar bytes',
        '',
        'x'.repeat(1000),
        'y'.repeat(70_000),
        '',
      ].map((t) => Buffer.from(t));
      expect(await readAll(new FrameReader(pieces(payloads, n)))).toEqual(
        payloads.map((p) => p.toString()),
      );
    },
  );

  test('a stream ending inside a frame is an error, not a clean end', async () => {
    const bytes = Buffer.concat(frame(Buffer.from('hello'))).subarray(0, 6);
    await expect(readAll(new FrameReader(Readable.from([bytes])))).rejects.toThrow(
      /ended inside a frame/,
    );
  });

  test('an absurd length means the stream is out of step', async () => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(MAX_FRAME_BYTES + 1);
    await expect(new FrameReader(Readable.from([head])).next()).rejects.toThrow(/out of step/);
  });
});

// Shared by the tar tests: a seeded PRNG and stream helpers. Not part of the bundle.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createTarReader } from './reader';
import type { TarHeader } from './header';

/** mulberry32: small, seeded, good enough to pick chunk sizes and bytes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomBytes(rand: () => number, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

/** Splits `data` into chunks of random sizes (1 byte up to `max`). */
export function randomChunks(data: Buffer, rand: () => number, max = 1500): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length;) {
    const n = 1 + Math.floor(rand() * max);
    out.push(data.subarray(at, at + n));
    at += n;
  }
  return out;
}

export async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

export interface ReadEntry {
  header: TarHeader;
  data: Buffer;
}

/** Reads a whole archive given as chunks; every body is collected. */
export async function readAll(chunks: Buffer[]): Promise<ReadEntry[]> {
  const entries: ReadEntry[] = [];
  await pipeline(
    Readable.from(chunks),
    createTarReader(async ({ header, body }) => {
      entries.push({ header, data: await collect(body) });
    }),
  );
  return entries;
}

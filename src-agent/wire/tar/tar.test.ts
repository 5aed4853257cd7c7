import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeHeader, encodeEntryHeaders, parsePaxRecords, paxRecord } from './header';
import { createTarReader } from './reader';
import { collect, randomBytes, randomChunks, readAll, seededRandom } from './tar-test-helpers';
import { createTarWriter } from './writer';

const LONG_DIR = `deep/${'d'.repeat(60)}/${'e'.repeat(60)}`;
const LONG_FILE = `${LONG_DIR}/${'f'.repeat(120)}.bin`;

interface Fixture {
  path: string;
  data?: Buffer;
  mode: number;
}

function fixtures(seed: number): Fixture[] {
  const rand = seededRandom(seed);
  return [
    { path: 'empty.txt', data: Buffer.alloc(0), mode: 0o644 },
    { path: 'src', mode: 0o755 },
    { path: 'src/one.txt', data: Buffer.from('one\n'), mode: 0o644 },
    { path: 'src/block.bin', data: randomBytes(rand, 512), mode: 0o600 },
    { path: 'src/odd.bin', data: randomBytes(rand, 513), mode: 0o755 },
    { path: 'src/big.bin', data: randomBytes(rand, 200_000), mode: 0o644 },
    { path: 'deep', mode: 0o755 },
    { path: LONG_DIR, mode: 0o700 },
    { path: LONG_FILE, data: randomBytes(rand, 3000), mode: 0o640 },
    { path: 'ünïcødé/naïve.txt', data: Buffer.from('utf8 path'), mode: 0o644 },
  ];
}

const MTIME = new Date('2025-06-01T12:00:00Z');

async function writeArchive(entries: Fixture[], asStreams: boolean): Promise<Buffer> {
  const writer = createTarWriter();
  const done = collect(writer);
  for (const e of entries) {
    if (!e.data) void writer.addDirectory(e.path, { mode: e.mode, mtime: MTIME });
    else {
      const source = asStreams
        ? Readable.from(randomChunks(e.data, seededRandom(7), 4000))
        : e.data;
      void writer.addFile(e.path, { size: e.data.length, mode: e.mode, mtime: MTIME }, source);
    }
  }
  await writer.finish();
  return done;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tender-tar-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tar round trip', () => {
  it.each([1, 2, 3, 4, 5])(
    'reads back what it wrote, under random chunking (seed %i)',
    async (seed) => {
      const entries = fixtures(seed);
      const archive = await writeArchive(entries, seed % 2 === 0);
      expect(archive.length % 512).toBe(0);
      const read = await readAll(
        randomChunks(archive, seededRandom(seed * 31), seed === 1 ? 3 : 2000),
      );
      expect(read.map((r) => r.header.path)).toEqual(
        entries.map((e) => (e.data ? e.path : `${e.path}/`)),
      );
      for (const [i, e] of entries.entries()) {
        const r = read[i]!;
        expect(r.header.type).toBe(e.data ? 'file' : 'directory');
        expect(r.header.mode).toBe(e.mode);
        expect(r.header.mtime.getTime()).toBe(MTIME.getTime());
        expect(r.data.equals(e.data ?? Buffer.alloc(0))).toBe(true);
      }
    },
  );

  it('rejects a source that yields fewer bytes than declared', async () => {
    const writer = createTarWriter();
    const done = collect(writer);
    await expect(writer.addFile('a', { size: 10 }, Buffer.from('short'))).rejects.toThrow(
      /fewer bytes/,
    );
    await expect(done).rejects.toThrow(/fewer bytes/);
  });

  it('waits for the reader: a stalled consumer holds back the next entry', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 7);
    const archive = await writeArchive(
      [
        { path: 'big', data: big, mode: 0o644 },
        { path: 'next', data: Buffer.from('x'), mode: 0o644 },
      ],
      false,
    );
    const seen: string[] = [];
    let releaseBody: (() => void) | undefined;
    const reader = createTarReader(async ({ header, body }) => {
      seen.push(header.path);
      if (header.path === 'big') await new Promise<void>((r) => (releaseBody = r));
      await collect(body);
    });
    for (const chunk of randomChunks(archive, seededRandom(1), 65536)) reader.write(chunk);
    reader.end();
    await new Promise((r) => setImmediate(r));
    // Most of the archive is still waiting in the writable: the reader did not slurp it.
    expect(reader.writableLength).toBeGreaterThan(archive.length / 2);
    expect(seen).toEqual(['big']);
    releaseBody?.();
    await new Promise<void>((resolve, reject) => reader.on('finish', resolve).on('error', reject));
    expect(seen).toEqual(['big', 'next']);
  });
});

describe('tar reader errors', () => {
  it('fails on a truncated stream', async () => {
    const archive = await writeArchive(fixtures(1), false);
    await expect(readAll([archive.subarray(0, 100_000)])).rejects.toThrow(/truncated/);
    const noEnd = archive.subarray(0, archive.length - 1024);
    await expect(readAll([noEnd])).rejects.toThrow(/truncated/);
  });

  it('fails on bytes that are not a tar', async () => {
    await expect(readAll([Buffer.alloc(1024, 'x')])).rejects.toThrow(/checksum/);
  });

  it('fails when the entry handler throws, without reading on', async () => {
    const archive = await writeArchive(fixtures(2), false);
    const seen: string[] = [];
    const run = pipeline(
      Readable.from([archive]),
      createTarReader(({ header }) => {
        seen.push(header.path);
        if (header.path === 'src/one.txt') throw new Error('disk full');
      }),
    );
    await expect(run).rejects.toThrow('disk full');
    expect(seen).toEqual(['empty.txt', 'src/', 'src/one.txt']);
  });
});

describe('tar headers', () => {
  it('uses PAX size for files over 8 GiB', () => {
    const size = 2 ** 33 + 5;
    const blocks = encodeEntryHeaders({
      path: 'huge.bin',
      typeflag: '0',
      size,
      mode: 0o644,
      mtime: 0,
    });
    expect(blocks.length).toBe(3 * 512);
    const pax = decodeHeader(blocks.subarray(0, 512), 0);
    expect(pax.typeflag).toBe('x');
    expect(parsePaxRecords(blocks.subarray(512, 512 + pax.size))).toEqual({ size: String(size) });
    expect(decodeHeader(blocks.subarray(1024), 1024)).toMatchObject({ name: 'huge.bin', size: 0 });
  });

  it('lets a PAX size override the ustar size field when reading', async () => {
    const headers = encodeEntryHeaders({
      path: 'p',
      typeflag: '0',
      size: 0,
      mode: 0o644,
      mtime: 0,
    });
    const body = Buffer.from(paxRecord('size', '5'));
    const paxHeader = encodeEntryHeaders({
      path: 'x',
      typeflag: 'x',
      size: body.length,
      mode: 0o644,
      mtime: 0,
    });
    const archive = Buffer.concat([
      paxHeader,
      body,
      Buffer.alloc(512 - body.length),
      headers,
      Buffer.from('hello'),
      Buffer.alloc(507),
      Buffer.alloc(1024),
    ]);
    const [entry] = await readAll([archive]);
    expect(entry?.data.toString()).toBe('hello');
  });

  it('writes PAX record lengths that count their own digits', () => {
    for (const value of ['a', 'x'.repeat(85), 'x'.repeat(86), 'x'.repeat(990), 'x'.repeat(995)]) {
      const rec = paxRecord('path', value);
      expect(Number(rec.split(' ')[0])).toBe(Buffer.byteLength(rec));
    }
  });
});

describe('tar interop with GNU tar', () => {
  it('GNU tar extracts what the writer produced', async () => {
    const entries = fixtures(9);
    await writeFile(join(dir, 'a.tar'), await writeArchive(entries, true));
    await mkdir(join(dir, 'x'));
    execFileSync('tar', ['-xf', join(dir, 'a.tar'), '-C', join(dir, 'x')]);
    for (const e of entries) {
      const st = await stat(join(dir, 'x', e.path));
      expect(st.isDirectory()).toBe(!e.data);
      expect(st.mtime.getTime()).toBe(MTIME.getTime());
      if (e.data) {
        expect((await readFile(join(dir, 'x', e.path))).equals(e.data)).toBe(true);
        expect(st.mode & 0o777).toBe(e.mode);
      }
    }
  });

  it.each([
    ['gnu', ['--format=gnu']],
    ['posix with a global header', ['--format=posix', '--pax-option=comment=made-by-test']],
    ['ustar', ['--format=ustar']],
  ])('reads what GNU tar wrote (%s)', async (name, flags) => {
    const src = join(dir, 'src');
    const entries = fixtures(3).filter((e) => name !== 'ustar' || !e.path.includes(LONG_DIR));
    for (const e of entries) {
      if (!e.data) await mkdir(join(src, e.path), { recursive: true });
      else {
        await mkdir(join(src, e.path, '..'), { recursive: true });
        await writeFile(join(src, e.path), e.data, { mode: e.mode });
        await utimes(join(src, e.path), MTIME, MTIME);
      }
    }
    const archive = execFileSync(
      'tar',
      ['-c', ...flags, '-C', src, ...entries.filter((e) => e.data).map((e) => e.path)],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const read = await readAll(randomChunks(archive, seededRandom(5), 700));
    const files = read.filter((r) => r.header.type === 'file');
    expect(files.map((f) => f.header.path)).toEqual(
      entries.filter((e) => e.data).map((e) => e.path),
    );
    for (const f of files) {
      const e = entries.find((x) => x.path === f.header.path)!;
      expect(f.data.equals(e.data!)).toBe(true);
      expect(f.header.mtime.getTime()).toBe(MTIME.getTime());
    }
  });

  it('drains bodies the handler did not read', async () => {
    const archive = await writeArchive(fixtures(4), false);
    const paths: string[] = [];
    await pipeline(
      Readable.from(randomChunks(archive, seededRandom(2), 9000)),
      createTarReader(({ header }) => {
        paths.push(header.path);
      }),
    );
    expect(paths).toHaveLength(fixtures(4).length);
  });
});

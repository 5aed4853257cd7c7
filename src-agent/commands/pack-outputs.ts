// `pack-outputs --dir D --spec B64 [--have-stdin]`: the marker, then a tar of the declared
// paths (relative to the workspace), of D/output/ under _output/, and last
// `.tender/manifest.json`. With `--have-stdin` the app first writes what it holds from its
// last pull (`OutputsHave`); a file whose size and mtime are unchanged is not sent again,
// only listed as `kept` (a pull every few minutes during a run costs what changed).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { STREAM_MARKER } from '../wire/marker';
import { decodeOutputsSpec } from '../outputs-spec';
import { nodePaths } from '../wire/paths';
import {
  MANIFEST_PATH,
  type OutputsHave,
  type OutputsManifest,
  type OutputsSpec,
} from '../wire/protocol';
import { UsageError } from '../args';
import { createTarWriter, type TarWriter } from '../wire/tar/writer';
import type { FoundEntry } from './output-walk';
import { findOutputSet } from './output-set';

/** A file modified this recently may change again within the same mtime: always sent. */
const SETTLED_MS = 2_000;

export async function runPackOutputs(
  dir: string,
  specB64: string,
  opts: { haveOnStdin?: boolean } = {},
): Promise<number> {
  const paths = nodePaths(dir);
  const have = opts.haveOnStdin ? await readHave() : {};
  let spec: OutputsSpec;
  try {
    spec = decodeOutputsSpec(specB64);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { entries, manifest } = findOutputSet(paths, spec);

  process.stdout.write(STREAM_MARKER);
  const tar = createTarWriter();
  const sent = pipeline(tar, process.stdout);
  await writeEntries(tar, entries, manifest, have, Date.now());
  const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  await tar.addFile(MANIFEST_PATH, { size: body.length, mode: 0o644 }, body);
  await tar.finish();
  await sent;
  return 0;
}

async function writeEntries(
  tar: TarWriter,
  entries: FoundEntry[],
  manifest: OutputsManifest,
  have: OutputsHave,
  now: number,
): Promise<void> {
  for (const e of entries) {
    const meta = { mode: e.mode, mtime: e.mtime };
    if (e.kind === 'directory') {
      await tar.addDirectory(e.archivePath, meta);
      continue;
    }
    const mtimeMs = e.mtime.getTime();
    const held = have[e.archivePath];
    if (held && held[0] === e.size && held[1] === mtimeMs && now - mtimeMs >= SETTLED_MS) {
      (manifest.kept ??= []).push({ path: e.archivePath, size: e.size, mtimeMs });
      continue;
    }
    const hash = createHash('sha256');
    if (e.size === 0) {
      await tar.addFile(e.archivePath, { ...meta, size: 0 }, Buffer.alloc(0));
    } else {
      // Read no more than the size announced in the header, even if the file grows.
      const file = createReadStream(e.diskPath, { start: 0, end: e.size - 1 });
      const hashed = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      file.on('error', (err) => hashed.destroy(err));
      await tar.addFile(e.archivePath, { ...meta, size: e.size }, file.pipe(hashed));
    }
    manifest.files.push({
      path: e.archivePath,
      size: e.size,
      sha256: hash.digest('hex'),
      mtimeMs,
    });
  }
}

/** The app's `OutputsHave` on stdin; anything unreadable counts as holding nothing. */
async function readHave(): Promise<OutputsHave> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const have: OutputsHave = {};
    for (const [path, v] of Object.entries(parsed as Record<string, unknown>)) {
      if (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number')
        have[path] = [v[0], v[1]];
    }
    return have;
  } catch {
    return {};
  }
}

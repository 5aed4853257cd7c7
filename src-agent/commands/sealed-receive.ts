// A sealed full push (`recv-workspace --sealed`): the workspace's folders and files under
// `w/`, then `manifest.json`, the app's manifest of exactly what it sent. The node's own
// GNU tar extracts it when there is one, so no JavaScript touches the data on its way to
// disk and a first push of thousands of files runs at tar's speed; without one the
// agent's extractor does, and also checks every file's sha256. A compressed push reaches
// either through the agent's decoder (push-decoder.ts), which checks every compressed
// segment against its digest; the link, not tar, is then the limit. Either way every file is
// then checked against the manifest (a regular file, its size, its mode) before the caller
// swaps `staging/w` in. SSH's integrity check covers the bytes in transit.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ManifestEntry, SEALED_MANIFEST, SEALED_TREE } from '../wire/protocol';
import { createTarReader } from '../wire/tar/reader';
import { filesOf, type ManifestFiles, stringsOf, workspaceMode } from '../wire/workspace-manifest';
import { lstatOrNull, type Signature, signatureOf } from './node-manifest';
import { checkListedPaths, TarExtractor } from './tar-extractor';
import { coded } from './workspace-receiver';

export interface SealedWorkspace {
  files: ManifestFiles;
  dirs: string[];
  /** Each file's signature as checked in staging (a rename keeps it). */
  signatures: Map<string, Signature>;
  totals: { files: number; bytes: number; skipped: number };
  /** Who extracted it. */
  extractor: 'tar' | 'agent';
}

/** Extracts `input` into `staging` and checks it; throws a coded error otherwise. */
export async function receiveSealed(
  input: Readable | { fd: number },
  staging: string,
): Promise<SealedWorkspace> {
  const useTar = process.env.TENDER_AGENT_TAR !== '0' && hasGnuTar();
  const hashes = useTar
    ? undefined
    : await extractWithAgent('fd' in input ? process.stdin : input, staging);
  if (useTar) await extractWithTar(input, staging);
  const { files, dirs } = readSealedManifest(staging);
  const tree = join(staging, SEALED_TREE);
  mkdirSync(tree, { recursive: true }); // an empty workspace has no entries under w/
  const signatures = new Map<string, Signature>();
  let bytes = 0;
  for (const [path, want] of files) {
    const st = lstatOrNull(join(tree, path));
    const hash = hashes?.get(path);
    if (
      !st?.isFile() ||
      st.size !== want.size ||
      workspaceMode(st.mode) !== workspaceMode(want.mode) ||
      (hashes !== undefined && hash !== want.sha256)
    ) {
      throw coded(
        st?.isFile() ? 'hash_mismatch' : 'bad_entry',
        `${path} arrived damaged or not at all: ${st ? `${st.size} bytes, mode ${(st.mode & 0o777).toString(8)}` : 'missing'}, the app sent ${describe(want)}; push again`,
        path,
      );
    }
    signatures.set(path, signatureOf(st));
    bytes += st.size;
  }
  for (const dir of dirs) mkdirSync(join(tree, dir), { recursive: true, mode: 0o755 });
  return {
    files,
    dirs,
    signatures,
    totals: { files: files.size, bytes, skipped: 0 },
    extractor: useTar ? 'tar' : 'agent',
  };
}

let gnuTar: boolean | undefined;

/** Whether `tar` on PATH is GNU tar (its options are the ones used here). */
function hasGnuTar(): boolean {
  gnuTar ??= /GNU tar/.test(
    spawnSync('tar', ['--version'], { encoding: 'utf8', timeout: 5_000 }).stdout ?? '',
  );
  return gnuTar;
}

/** `input` as a descriptor (this process's stdin, not yet read) goes to tar as its own
 *  stdin: the data then never passes through this process. */
async function extractWithTar(input: Readable | { fd: number }, staging: string): Promise<void> {
  const isFd = 'fd' in input;
  // --no-same-permissions: modes as sent less the agent's umask 077 (the owner's bits:
  // workspaceMode), also as root; --no-same-owner: never chown, also as root; times as
  // sent (tar's default).
  const args = ['-x', '--no-same-permissions', '--no-same-owner', '-f', '-', '-C', staging];
  const tar = spawn('tar', args, {
    stdio: [isFd ? input.fd : 'pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  tar.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8000)));
  const exited = new Promise<number | null>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) => resolve(code));
  });
  const feeding = isFd ? Promise.resolve() : pipeline(input, tar.stdin!);
  const [fed, code] = await Promise.allSettled([feeding, exited]);
  // A damaged compressed push (push-decoder.ts) cut tar's input short: that is the cause,
  // not whatever tar made of the cut.
  if (fed.status === 'rejected' && (fed.reason as { code?: unknown }).code === 'bad_encoding') {
    throw fed.reason as Error;
  }
  if (code.status === 'rejected') throw code.reason as Error;
  if (code.value !== 0) throw tarFailure(stderr, code.value);
  if (fed.status === 'rejected') throw fed.reason as Error; // tar was content; the input was not
}

/** The extracted files' sha256, by workspace path. */
async function extractWithAgent(input: Readable, staging: string): Promise<Map<string, string>> {
  const extractor = new TarExtractor(staging);
  const hashes = new Map<string, string>();
  const prefix = `${SEALED_TREE}/`;
  try {
    await pipeline(
      input,
      createTarReader(async (entry) => {
        const file = await extractor.extract(entry);
        if (file?.path.startsWith(prefix)) hashes.set(file.path.slice(prefix.length), file.sha256);
      }),
    );
  } catch (err) {
    // Errors name the workspace path, not where it is in the archive.
    const e = err as { entryPath?: string };
    if (e.entryPath?.startsWith(prefix)) e.entryPath = e.entryPath.slice(prefix.length);
    throw err;
  }
  extractor.finishDirectories();
  return hashes;
}

function readSealedManifest(staging: string): { files: ManifestFiles; dirs: string[] } {
  let raw: { version?: unknown; files?: unknown; dirs?: unknown };
  try {
    raw = JSON.parse(readFileSync(join(staging, SEALED_MANIFEST), 'utf8')) as typeof raw;
  } catch (err) {
    throw coded('bad_tar', `the push ended without its manifest: ${(err as Error).message}`);
  }
  let files: ManifestFiles;
  let dirs: string[];
  try {
    if (raw.version !== 1) throw new Error(`version ${String(raw.version)} is not 1`);
    files = filesOf(raw.files, SEALED_MANIFEST);
    dirs = stringsOf(raw.dirs, 'dirs');
    checkListedPaths([...files.keys(), ...dirs]);
  } catch (err) {
    if ((err as { code?: string }).code === 'unsafe_path') throw err;
    throw coded('bad_tar', `an unreadable ${SEALED_MANIFEST}: ${(err as Error).message}`);
  }
  return { files, dirs };
}

/**
 * tar's complaint as a coded error: a full disk (GNU tar goes on to the next member and
 * fails at the end) names the first file it could not write, under its workspace path.
 */
function tarFailure(stderr: string, code: number | null): Error {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const isFull = lines.some((l) => /No space left on device|Disk quota exceeded/.test(l));
  // "Wrote only N of M bytes" (the file that filled the disk) comes before the next file's
  // "Cannot write: No space left on device".
  const first = lines.find((l) => /^tar: (?:\.\/)?w\/.+?: (?:Wrote only|Cannot )/.test(l));
  const line = (isFull ? first : undefined) ?? lines.find((l) => /^tar: /.test(l)) ?? '';
  const path = /^tar: (?:\.\/)?w\/(.+?): /.exec(line)?.[1];
  if (!isFull) {
    return Object.assign(new Error(`tar -x failed (exit ${code}): ${line.replace(/^tar: /, '')}`), {
      code: 'tar_failed',
      entryPath: path,
    });
  }
  const errno = lines.some((l) => /quota/.test(l)) ? 'EDQUOT' : 'ENOSPC';
  // describeFailure adds "(while writing …)" for system errors, which this is.
  return Object.assign(new Error('no space left on device'), {
    code: errno,
    entryPath: path,
    syscall: 'write',
  });
}

function describe(e: ManifestEntry): string {
  return `${e.size} bytes, mode ${e.mode.toString(8)}`;
}

import path from 'node:path';
import type { Outcomes } from './key-outcomes';

/** Where the importer reads paths from; nothing here touches the disk. */
export interface PathContext {
  /** Folder that relative local paths are resolved against. */
  base: string;
  home: string;
  /** The workspace (absolute) that Tender pushes. */
  workdir: string;
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

/**
 * A local file or folder the task wants at `remote` on the node. Tender pushes one folder,
 * the workspace: a path inside it is already on the node, so setup links it where the task
 * expects it. A bucket, or a path outside the workspace, is left out with a warning naming
 * the mount: the job runs without it (nothing outside the workspace is ever copied, a key
 * under ~/.ssh least of all).
 * Returns the setup line, or undefined (none needed, or left out).
 */
export function linkLocalPath(
  at: string,
  remote: string,
  local: string,
  ctx: PathContext,
  out: Outcomes,
): string | undefined {
  if (URL_SCHEME.test(local)) {
    bucketMount(at, remote, local, out);
    return undefined;
  }
  const abs = path.resolve(ctx.base, expandHome(local, ctx.home));
  const rel = path.relative(ctx.workdir, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    const isKey =
      abs === path.join(ctx.home, '.ssh') || abs.startsWith(path.join(ctx.home, '.ssh') + path.sep);
    out.warned(
      at,
      `${local} is outside the workspace (${ctx.workdir}): Tender pushes the workspace only, so ${remote} will not be on the node${isKey ? ' (nothing under ~/.ssh is ever copied to a node)' : ''}; if the job needs it, copy it into the workspace or set the workdir to a folder that holds both`,
    );
    return undefined;
  }
  const source = rel === '' ? '"$TENDER_WORKSPACE"' : `"$TENDER_WORKSPACE"/${shellWord(rel)}`;
  const target = remoteTarget(remote);
  if (target === source) {
    out.mapped(at, `already in the workspace at ${rel}`);
    return undefined;
  }
  out.warned(
    at,
    'linked from the pushed workspace in setup (a .gitignored file is not pushed; a target outside $HOME may need root)',
    `setup: ln -sfn ${source} ${target}`,
  );
  return `mkdir -p "$(dirname ${target})" && ln -sfn ${source} ${target}`;
}

/** `~/data` → `"$HOME"/data`; a relative target is inside the workspace (dstack's
 *  `files` paths are relative to the working directory). */
function remoteTarget(remote: string): string {
  if (remote === '~') return '"$HOME"';
  if (remote.startsWith('~/')) return `"$HOME"/${shellWord(remote.slice(2))}`;
  if (path.posix.isAbsolute(remote)) return shellWord(remote);
  const clean = path.posix.normalize(remote);
  return clean === '.' ? '"$TENDER_WORKSPACE"' : `"$TENDER_WORKSPACE"/${shellWord(clean)}`;
}

function shellWord(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A bucket or storage mount at `remote` (`source`: its bucket URL; null: a bucket the task
 * would create): Tender mounts none. Left out with a warning that what the job writes there
 * is lost when the node is torn down, and where results should go instead.
 */
export function bucketMount(
  at: string,
  remote: string,
  source: string | null,
  out: Outcomes,
): void {
  out.warned(
    at,
    `a bucket mount (${source ?? 'a new bucket'}) at ${remote}: Tender mounts no buckets, so data the job writes to ${remote} is lost at teardown — write results under the workspace and list them in [job] outputs to bring them back; download inputs in setup`,
  );
}

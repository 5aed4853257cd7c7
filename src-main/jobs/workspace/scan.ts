import { type Dirent, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { BadInputError } from '../../base/bad-input-error';
import { excludeRules, gitignoreRules, matchRules, type RuleSet } from './ignore-rules';
import { secretPatternOf } from './secret-patterns';
import { workspaceMode } from '../../../src-agent/wire/workspace-manifest';

export interface ScannedFile {
  /** POSIX path relative to the workspace root. */
  path: string;
  size: number;
  /** Permission bits only (`0o755`): what the node needs to recreate the file. */
  mode: number;
  mtimeMs: number;
  /** The inode: with size and mtime, what lets the hash cache trust an earlier hash. */
  ino: number;
}

export type ExclusionReason = 'git' | 'exclude' | 'gitignore' | 'special';

export interface ExcludedEntry {
  /** POSIX path relative to the root; a folder ends with `/` and stands for all it holds. */
  path: string;
  reason: ExclusionReason;
  /** The matching pattern for `exclude`/`gitignore`; for `special`, what the entry is
   *  (`symlink`, `fifo`, `socket`, `device`, `unreadable`) or the error code. */
  rule?: string;
  /** Where a matching rule came from: `sub/.gitignore`, or `exclude` (the job's list). */
  source?: string;
}

export interface SecretWarning {
  path: string;
  /** The name pattern it matched, e.g. `*.pem`. */
  pattern: string;
}

/** What a push of the workspace would send, and what it would leave behind and why. */
export interface WorkspaceScan {
  root: string;
  files: ScannedFile[];
  /** Every included folder (so empty ones can be recreated), root excluded. */
  dirs: string[];
  totalBytes: number;
  excluded: ExcludedEntry[];
  /** Included files whose names suggest credentials; a warning, not an exclusion. */
  secrets: SecretWarning[];
}

/**
 * Lists what a push of `workdir` would send. `.git` is always left out, then `.gitignore`
 * files at every level and the job's `exclude` patterns (gitignore syntax, relative to
 * `workdir`) are applied. Symlinks, sockets, fifos and devices are left out as `special`:
 * a link can point outside the workspace or at something huge, and following none is the
 * rule that cannot surprise. Entries that cannot be read are `special` too, never a crash.
 * Results are sorted by path, so equal folders give equal scans.
 */
export async function scanWorkspace(
  workdir: string,
  exclude: readonly string[],
): Promise<WorkspaceScan> {
  const root = path.resolve(workdir);
  const isReadable = readabilityCheck();
  const jobRules = excludeRules(exclude);
  const scan: WorkspaceScan = {
    root,
    files: [],
    dirs: [],
    totalBytes: 0,
    excluded: [],
    secrets: [],
  };
  // Synchronous calls: a few microseconds per entry on a local disk, where a promise round
  // trip through the thread pool costs ~20 µs and dominated scans of thousands of files.
  // Every YIELD_EVERY entries the event loop gets a turn, so a slow (network) file system
  // cannot freeze the app's main process.
  let sinceYield = 0;
  const breathe = async () => {
    if (++sinceYield < YIELD_EVERY) return;
    sinceYield = 0;
    await new Promise((resolve) => setImmediate(resolve));
  };

  async function walk(dirRel: string, inherited: readonly RuleSet[]): Promise<void> {
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(root, dirRel), { withFileTypes: true });
    } catch (err) {
      if (dirRel === '') throw unreadableRoot(root, err);
      scan.excluded.push({ path: `${dirRel}/`, reason: 'special', rule: errorCode(err) });
      return;
    }
    if (dirRel !== '') scan.dirs.push(dirRel);
    const gitignore = entries.find(
      (e) => e.name === '.gitignore' && (e.isFile() || direntKind(e) === undefined),
    );
    const rules = gitignore ? [...inherited, readGitignore(dirRel)] : inherited;
    const ruleSets = [...rules, jobRules];

    const subdirs: string[] = [];
    for (const entry of entries) {
      await breathe();
      const rel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`;
      const kind = kindOf(entry, rel);
      const shown = kind === 'dir' ? `${rel}/` : rel;
      if (entry.name === '.git') {
        scan.excluded.push({ path: shown, reason: 'git' });
        continue;
      }
      if (kind === 'gone') continue;
      const match = matchRules(rel, kind === 'dir', ruleSets);
      if (match) scan.excluded.push({ path: shown, ...match });
      else if (kind === 'dir') subdirs.push(rel);
      else if (kind === 'file') addFile(rel);
      else scan.excluded.push({ path: rel, reason: 'special', rule: kind });
    }
    for (const d of subdirs) await walk(d, rules);
  }

  function readGitignore(dirRel: string): RuleSet {
    const file = path.join(root, dirRel, '.gitignore');
    // An unreadable .gitignore adds no rules; the file itself is then reported as unreadable.
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // as above
    }
    return gitignoreRules(dirRel, text);
  }

  /** What the entry is, with an lstat only where the file system did not say. */
  function kindOf(entry: Dirent, rel: string): EntryKind | 'gone' {
    const known = direntKind(entry);
    if (known) return known;
    try {
      return direntKind(lstatSync(path.join(root, rel))) ?? 'device';
    } catch {
      return 'gone';
    }
  }

  function addFile(rel: string): void {
    let st: Stats;
    try {
      st = lstatSync(path.join(root, rel));
    } catch (err) {
      // Deleted between listing and stat: it is simply not part of the workspace any more.
      if (errorCode(err) !== 'ENOENT')
        scan.excluded.push({ path: rel, reason: 'special', rule: errorCode(err) });
      return;
    }
    if (!st.isFile()) {
      scan.excluded.push({ path: rel, reason: 'special', rule: direntKind(st) ?? 'device' });
      return;
    }
    if (!isReadable(st)) {
      scan.excluded.push({ path: rel, reason: 'special', rule: 'unreadable' });
      return;
    }
    scan.files.push({
      path: rel,
      size: st.size,
      mode: workspaceMode(st.mode),
      mtimeMs: st.mtimeMs,
      ino: st.ino,
    });
    scan.totalBytes += st.size;
    const pattern = secretPatternOf(path.posix.basename(rel));
    if (pattern) scan.secrets.push({ path: rel, pattern });
  }

  await walk('', []);
  scan.files.sort(byPath);
  scan.dirs.sort(comparePaths);
  scan.excluded.sort(byPath);
  scan.secrets.sort(byPath);
  return scan;
}

type EntryKind = 'file' | 'dir' | 'symlink' | 'fifo' | 'socket' | 'device';

const YIELD_EVERY = 128;

function direntKind(d: Dirent | Stats): EntryKind | undefined {
  if (d.isFile()) return 'file';
  if (d.isDirectory()) return 'dir';
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isFIFO()) return 'fifo';
  if (d.isSocket()) return 'socket';
  if (d.isBlockDevice() || d.isCharacterDevice()) return 'device';
  return undefined; // some file systems do not report the type in readdir
}

/** Code-unit order: the same on every machine and locale. */
const comparePaths = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byPath = (a: { path: string }, b: { path: string }): number => comparePaths(a.path, b.path);

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}

function unreadableRoot(root: string, err: unknown): BadInputError {
  const code = errorCode(err);
  if (code === 'ENOENT')
    return new BadInputError(`workdir does not exist: ${root}`, { cause: err });
  if (code === 'ENOTDIR')
    return new BadInputError(`workdir is not a folder: ${root}`, { cause: err });
  return new BadInputError(`cannot read workdir ${root}: ${code}`, { cause: err });
}

/**
 * Decides from mode bits whether this process may read a file, so an unreadable file is
 * reported now instead of failing the push later, without an extra system call per file.
 * ACLs can make it wrong in rare cases; root and Windows are taken to read everything.
 */
function readabilityCheck(): (st: Stats) => boolean {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return () => true;
  const groups = new Set([process.getgid?.(), ...(process.getgroups?.() ?? [])]);
  return (st) => {
    if (st.uid === uid) return (st.mode & 0o400) !== 0;
    if (groups.has(st.gid)) return (st.mode & 0o040) !== 0;
    return (st.mode & 0o004) !== 0;
  };
}

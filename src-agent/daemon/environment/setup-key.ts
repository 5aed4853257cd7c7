// What keys a job's persistent environment when the job names no files (no
// `setup_fingerprint`): the usual dependency files found in the workspace, and the
// workspace files its setup command names (`pip install -r env/gpu.txt`, `bash install.sh`).
// A file added, removed or edited among them builds a new environment; anything else in the
// workspace (the code being iterated on) does not.
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';

/** Top-level files that declare a Python research repository's dependencies (pip, uv,
 *  Poetry, PDM, Pipenv, conda, setuptools). JavaScript manifests are left out: in a
 *  research repository they change with tooling, not with what setup installs. */
export const DEPENDENCY_FILES: readonly RegExp[] = [
  /^requirements[\w.-]*\.txt$/,
  /^constraints[\w.-]*\.txt$/,
  /^pyproject\.toml$/,
  /^setup\.py$/,
  /^setup\.cfg$/,
  /^uv\.lock$/,
  /^poetry\.lock$/,
  /^pdm\.lock$/,
  /^Pipfile(\.lock)?$/,
  /^environment\.ya?ml$/,
  /^conda-lock\.ya?ml$/,
];
/** Folders whose `*.txt` files are requirement files (`requirements/base.txt`). */
export const DEPENDENCY_DIRS: readonly string[] = ['requirements'];
/** A file the command names that is larger than this is data, not a dependency list: it is
 *  not hashed on every run. */
export const MAX_NAMED_FILE_BYTES = 16 * 1024 * 1024;

/** The workspace-relative files (forward slashes, sorted, each once) that key the
 *  environment of `command` in `workspace`. A missing workspace has none. */
export function defaultKeyFiles(command: string, workspace: string): string[] {
  const found = new Set<string>();
  for (const name of listFiles(workspace))
    if (DEPENDENCY_FILES.some((re) => re.test(name))) found.add(name);
  for (const dir of DEPENDENCY_DIRS)
    for (const name of listFiles(join(workspace, dir)))
      if (name.endsWith('.txt')) found.add(`${dir}/${name}`);
  for (const path of namedFiles(command, workspace)) found.add(path);
  return [...found].sort();
}

/** Workspace files the command names as words: relative paths (after `=` for `--opt=path`)
 *  that stay inside the workspace and are regular files up to MAX_NAMED_FILE_BYTES. Words
 *  with `$`, globs or options are not paths here. */
export function namedFiles(command: string, workspace: string): string[] {
  const out: string[] = [];
  for (const raw of command.split(/[\s;&|()<>`]+/)) {
    let word = raw.replace(/^['"]+|['"]+$/g, '');
    if (word.startsWith('-')) word = word.includes('=') ? word.slice(word.indexOf('=') + 1) : '';
    if (word === '' || /[$*?[\]{}~\\]/.test(word) || isAbsolute(word)) continue;
    const rel = normalize(word);
    if (rel === '.' || rel === '..' || rel.startsWith(`..${sep}`)) continue;
    try {
      const st = statSync(join(workspace, rel));
      if (st.isFile() && st.size <= MAX_NAMED_FILE_BYTES) out.push(rel.split(sep).join('/'));
    } catch {
      // not a file of the workspace: a package name, a flag's value, a URL
    }
  }
  return out;
}

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/** What the key covered, for the log: "`pip install -r requirements.txt` + requirements.txt".
 *  The command is cut to its first line and 80 characters. */
export function describeKey(command: string, files: readonly string[], image?: string): string {
  const lines = command.trim().split('\n');
  let shown = lines[0]!.trim();
  if (shown.length > 80) shown = `${shown.slice(0, 79)}…`;
  else if (lines.length > 1) shown += ' …';
  const parts = [`\`${shown}\``, ...(files.length > 0 ? [files.join(', ')] : [])];
  if (image) parts.push(`image ${image}`);
  return parts.join(' + ');
}

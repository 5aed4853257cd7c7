// `source ~/.tender/env` in any shell on the node (the user's own `ssh <alias>`, `tender
// ssh`, the app's terminal) loads the job's environment — without its secrets, which live
// in the agent's memory only and are never written to the node's disk.
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The lines of a POSIX sh script that export what the task environment adds to (or
 *  changes in) the daemon's own: the job's env, TENDER_*, params, the cache and the job's
 *  persistent environment on PATH. Secret keys are left out, by name. */
export function shellEnvScript(
  taskEnv: Record<string, string>,
  base: NodeJS.ProcessEnv,
  secretKeys: Iterable<string>,
): string {
  const secret = new Set(secretKeys);
  const lines = ["# The job's environment, without its secrets (Tender writes this file)."];
  for (const key of Object.keys(taskEnv).sort()) {
    const value = taskEnv[key]!;
    if (secret.has(key) || value === base[key] || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) continue;
    const was = base[key];
    if (key === 'PATH' && was && value.endsWith(`:${was}`))
      lines.push(`export PATH=${quote(value.slice(0, -was.length))}"$PATH"`);
    else lines.push(`export ${key}=${quote(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Writes `<D>/env.sh` and, for a node folder under `~/.tender/nodes/`, `~/.tender/env`
 *  that sources it (the job started last on the machine). Both 0600, written whole. */
export function writeShellEnv(nodeDir: string, script: string): void {
  const own = join(nodeDir, 'env.sh');
  writePrivate(own, script);
  const nodes = dirname(nodeDir);
  if (basename(nodes) === 'nodes' && basename(dirname(nodes)) === '.tender')
    writePrivate(join(dirname(nodes), 'env'), `. ${quote(own)}\n`);
}

function writePrivate(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

// `bootstrap_script` (docs/host-setup.md): once per machine, at its first bootstrap, after
// the verify commands and before the agent starts. "Once" is a marker in the node's cache
// folder named by the script's hash, so a second lease on the same machine (your own host)
// skips it, and a changed script runs again. A failure is a boot failure: the node never
// joins.
import { createHash } from 'node:crypto';
import type { HostKeyInput } from '../../src-agent/wire/host-key';
import { execCapture } from '../transport/exec-helpers';
import type { NodeShell } from '../transport/node-shell';
import { BootstrapError } from './bootstrap-errors';
import type { NodeLayout } from './node-layout';
import { PRIVATE_UMASK } from './cached-file-check';

/** The declaration's bootstrap script (it lives in the key's `extras`), if any. */
export function bootstrapScriptOf(decl: HostKeyInput | undefined): string | undefined {
  const script = decl?.extras?.bootstrap_script;
  return typeof script === 'string' && script !== '' ? script : undefined;
}

/** `<cache>/bootstrap/<16 hex of sha256(script)>.done`, as a shell word. */
export function bootstrapMarkerWord(layout: NodeLayout, script: string): string {
  const hash = createHash('sha256').update(script, 'utf8').digest('hex').slice(0, 16);
  return `${layout.cacheWord}/bootstrap/${hash}.done`;
}

export interface BootstrapScriptRun {
  shell: NodeShell;
  layout: NodeLayout;
  script: string;
  /** Marks our own probe line (a login shell cannot print a nonce it never saw). */
  nonce: string;
  signal: AbortSignal;
  log(stream: 'stdout' | 'stderr' | 'info', line: string): void;
}

/** Runs the script in the node folder unless its marker is there; marks it done on exit 0,
 *  throws a boot-check BootstrapError on any other exit. */
export async function runBootstrapScript(r: BootstrapScriptRun): Promise<void> {
  const marker = bootstrapMarkerWord(r.layout, r.script);
  const seen = `TENDER-BOOTSTRAPPED-${r.nonce}`;
  const check = await execCapture(r.shell, `test -e ${marker} && echo ${seen}`, {
    signal: r.signal,
  });
  if (check.stdout.includes(seen)) {
    r.log('info', 'bootstrap_script already ran on this machine: skipped');
    return;
  }
  r.log('info', 'bootstrap_script: running it once on this machine');
  const run = await execCapture(
    r.shell,
    `${PRIVATE_UMASK} && mkdir -p ${r.layout.dirWord} && cd ${r.layout.dirWord} && { ${r.script}\n}`,
    { signal: r.signal, onLine: (stream, line) => r.log(stream, line) },
  );
  if (run.code !== 0) {
    throw new BootstrapError(
      'boot_check_failed',
      `bootstrap_script exited ${run.code ?? run.signal}; its output is in the node's bootstrap log`,
    );
  }
  const dir = marker.slice(0, marker.lastIndexOf('/'));
  const done = await execCapture(r.shell, `${PRIVATE_UMASK} && mkdir -p ${dir} && : > ${marker}`, {
    signal: r.signal,
  });
  if (done.code !== 0)
    r.log(
      'stderr',
      `bootstrap_script succeeded but its marker could not be written: ${done.stderr.trim()}`,
    );
  r.log('info', 'bootstrap_script exited 0');
}

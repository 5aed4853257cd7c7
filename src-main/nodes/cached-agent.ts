// The agent bundle cached on a node (`<cache>/agent/tender-agent-<16 hex>.cjs`, for the
// local provider under the data folder): run only once its sha256 is the bundle's.
import type { VersionOutput } from '../../src-agent/wire/protocol';
import { execCapture, parseAfterMarker } from '../transport/exec-helpers';
import type { NodeShell } from '../transport/node-shell';
import { BootstrapError } from './bootstrap-errors';
import {
  cachedFileProblem,
  cachedFileScript,
  parseCachedFile,
  PRIVATE_UMASK,
} from './cached-file-check';
import type { NodeLayout } from './node-layout';

export interface CachedAgentCheck {
  shell: NodeShell;
  layout: NodeLayout;
  bundle: { bytes: Buffer; sha256: string; version: string };
  /** The Node command that runs it (found before). */
  runtime: string;
  /** Marks our own output line (a login shell cannot print a nonce it never saw). */
  nonce: string;
  log(line: string): void;
  signal: AbortSignal;
}

/** Pushes the agent bundle unless the file cached under its hash has that sha256: a cached
 *  file that does not (changed on the node, planted, cut short) is logged and replaced,
 *  never run. Then asks the agent its version; returns the bundle's shell word. */
export async function ensureCachedAgent(c: CachedAgentCheck): Promise<string> {
  const { bundle, layout, shell, signal } = c;
  const dirWord = `${layout.cacheWord}/agent`;
  const bundleWord = `${dirWord}/tender-agent-${bundle.sha256.slice(0, 16)}.cjs`;
  const marker = `TENDER-AGENT-SHA-${c.nonce}`;
  // One round trip: the private root (a folder from an older Tender made 0700), the hash.
  const root = `${PRIVATE_UMASK}; mkdir -p ${layout.rootWord} && chmod 700 ${layout.rootWord}`;
  const check = await execCapture(shell, `${root}; ${cachedFileScript(bundleWord, marker)}`, {
    signal,
  });
  const problem = cachedFileProblem(
    `agent ${bundle.version}`,
    parseCachedFile(check.stdout, marker),
    bundle.sha256,
  );
  if (problem === null) {
    c.log(`agent ${bundle.version} already on the node (sha256 checked)`);
  } else {
    c.log(problem);
    c.log(`pushing agent ${bundle.version} (${Math.round(bundle.bytes.length / 1024)} KB)`);
    const tmp = `${bundleWord}.tmp.$$`;
    const push = await execCapture(
      shell,
      `${PRIVATE_UMASK} && mkdir -p ${dirWord} && cat > ${tmp} && mv -f ${tmp} ${bundleWord}`,
      { signal, stdin: bundle.bytes },
    );
    if (push.code !== 0)
      throw new BootstrapError(
        'boot_check_failed',
        `pushing the agent failed: ${tail(push.stderr)}`,
      );
  }
  const v = await execCapture(shell, `${c.runtime} ${bundleWord} version`, { signal });
  if (!parseAfterMarker<VersionOutput>(v.stdout))
    throw new BootstrapError(
      'boot_check_failed',
      `the agent does not run: ${tail(v.stderr || v.stdout)}`,
    );
  return bundleWord;
}

function tail(text: string): string {
  const lines = text.trim().split('\n');
  return lines.slice(-3).join(' | ') || '(no output)';
}

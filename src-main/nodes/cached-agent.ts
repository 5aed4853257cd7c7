// The agent bundle cached on a node (`<cache>/agent/tender-agent-<16 hex>.cjs`, for the
// local provider under the data folder): run only once its sha256 is the bundle's.
import type { VersionOutput } from '../../src-agent/wire/protocol';
import { execCapture, parseAfterMarker } from '../transport/exec-helpers';
import type { NodeShell } from '../transport/node-shell';
import { BootstrapError, outputTail } from './bootstrap-errors';
import {
  cachedFileProblem,
  cachedFileScript,
  parseCachedFile,
  PRIVATE_UMASK,
} from './cached-file-check';
import { cachedAgentWord, type NodeLayout } from './node-layout';

export interface CachedAgentCheck {
  shell: NodeShell;
  layout: NodeLayout;
  bundle: { bytes: Buffer; sha256: string; version: string };
  /** Marks our own output line (a login shell cannot print a nonce it never saw). */
  nonce: string;
  log(line: string): void;
  signal: AbortSignal;
}

/** The cached bundle's shell word and what is wrong with the file there (null: it is the
 *  bundle, sha256 checked). One round trip, which also makes the private root (a folder
 *  from an older Tender made 0700); needs no runtime, so it runs beside the probes. */
export async function checkCachedAgent(
  c: CachedAgentCheck,
): Promise<{ bundleWord: string; problem: string | null }> {
  const { bundle, layout } = c;
  const bundleWord = cachedAgentWord(layout, bundle);
  const marker = `TENDER-AGENT-SHA-${c.nonce}`;
  const root = `${PRIVATE_UMASK}; mkdir -p ${layout.rootWord} && chmod 700 ${layout.rootWord}`;
  const check = await execCapture(c.shell, `${root}; ${cachedFileScript(bundleWord, marker)}`, {
    signal: c.signal,
  });
  const problem = cachedFileProblem(
    `agent ${bundle.version}`,
    parseCachedFile(check.stdout, marker),
    bundle.sha256,
  );
  return { bundleWord, problem };
}

/** Pushes the agent bundle unless the file cached under its hash has that sha256
 *  (`checked`: checkCachedAgent's answer): a cached file that does not (changed on the
 *  node, planted, cut short) is logged and replaced, never run. A pushed bundle is then
 *  asked its version (it runs under `runtime`); a cached one is run first by `start`,
 *  whose failure says why. Returns the bundle's shell word. */
export async function ensureCachedAgent(
  c: CachedAgentCheck & { runtime: string },
  checked: { bundleWord: string; problem: string | null },
): Promise<string> {
  const { bundle, shell, signal } = c;
  const { bundleWord, problem } = checked;
  if (problem === null) {
    c.log(`agent ${bundle.version} already on the node (sha256 checked)`);
    return bundleWord;
  }
  c.log(problem);
  c.log(`pushing agent ${bundle.version} (${Math.round(bundle.bytes.length / 1024)} KB)`);
  const tmp = `${bundleWord}.tmp.$$`;
  const dirWord = `${c.layout.cacheWord}/agent`;
  const push = await execCapture(
    shell,
    `${PRIVATE_UMASK} && mkdir -p ${dirWord} && cat > ${tmp} && mv -f ${tmp} ${bundleWord}`,
    { signal, stdin: bundle.bytes },
  );
  if (push.code !== 0)
    throw new BootstrapError(
      'boot_check_failed',
      `pushing the agent failed: ${outputTail(push.stderr)}`,
    );
  const v = await execCapture(shell, `${c.runtime} ${bundleWord} version`, { signal });
  if (!parseAfterMarker<VersionOutput>(v.stdout))
    throw new BootstrapError(
      'boot_check_failed',
      `the agent does not run: ${outputTail(v.stderr || v.stdout)}`,
    );
  return bundleWord;
}

// Which Node runs on a node: the first of the candidate commands (the layout's hints, then
// `node`, `nodejs` on PATH) that runs Node >= 18, asked in one command.

import { execCapture } from '../transport/exec-helpers';
import type { NodeShell } from '../transport/node-shell';
import type { NodeLayout } from './node-layout';

/** A Node command that runs on the node, and its version. */
export type FoundRuntime = { runtime: string; version: string };

export const MIN_NODE_MAJOR = 18;

/** The commands tried, in order. */
export const runtimeCandidates = (layout: NodeLayout): string[] => [
  ...layout.runtimeHints,
  'node',
  'nodejs',
];

/** One line per candidate, in order: the first that runs Node >= MIN_NODE_MAJOR (its
 *  version in `$v`) runs `then(candidate, index)`, which should end the command. */
export function firstNodeScript(
  candidates: string[],
  then: (candidate: string, index: number) => string,
): string {
  return candidates
    .map(
      (c, i) =>
        `v=$(${c} -e 'process.stdout.write(process.versions.node)' 2>/dev/null) && ` +
        `[ "\${v%%.*}" -ge ${MIN_NODE_MAJOR} ] 2>/dev/null && { ${then(c, i)}; }`,
    )
    .join('\n');
}

/** The first candidate that runs Node >= 18 (not logged here: the look may run before the
 *  probe's lines are logged, and the bootstrap's own line follows them). `nonce` marks the
 *  answer, which a login shell cannot forge. */
export async function firstWorking(
  shell: NodeShell,
  candidates: string[],
  nonce: string,
  signal: AbortSignal,
): Promise<FoundRuntime | null> {
  const script = firstNodeScript(
    candidates,
    (_c, i) => `echo "TENDER-RUNTIME-${nonce} ${i} $v"; exit 0`,
  );
  const r = await execCapture(shell, script, { signal });
  const m = new RegExp(`TENDER-RUNTIME-${nonce} (\\d+) (\\S+)`).exec(r.stdout);
  if (!m) return null;
  return { runtime: candidates[Number(m[1])]!, version: m[2]! };
}

// A fresh node's first push from the connection's first moment (jobs/node-job/early-push.ts),
// before the bootstrap's checks have answered: the command that starts the cached agent's
// `serve-workspace` only where the node itself finds what those checks look for, in the same
// command: the file under the bundle's hash has the bundle's sha256 (it is never run
// otherwise), and a candidate runtime runs Node >= 18. Else it exits SPECULATION_MISSED
// without running anything, and the push starts again once the bootstrap has the runtime
// and agent in place. On a far link this takes the probes' round trips (and their Node
// start on the node) off the push's way.
import { HASH_OF_F, PRIVATE_UMASK } from './cached-file-check';
import { type AgentAddress, cachedAgentWord, type NodeLayout } from './node-layout';
import { firstNodeScript, runtimeCandidates } from './runtime-probe';

export const SPECULATION_MISSED = 97;

export function speculativeServeCommand(
  layout: NodeLayout,
  bundle: { sha256: string },
  candidates: string[],
): string {
  return guardedAgentCommand(
    layout,
    bundle,
    candidates,
    (runtime) =>
      `mkdir -p ${layout.dirWord} && exec ${runtime} "$f" serve-workspace --dir ${layout.dirWord}`,
  );
}

/** Runs `then(runtime, index)` (`$f` is the cached agent) with the first candidate that
 *  runs Node >= 18, only where the file under the bundle's hash has the bundle's sha256;
 *  else exits SPECULATION_MISSED having run nothing. */
export function guardedAgentCommand(
  layout: NodeLayout,
  bundle: { sha256: string },
  candidates: string[],
  then: (runtime: string, index: number) => string,
): string {
  const bundleWord = cachedAgentWord(layout, bundle);
  return [
    `${PRIVATE_UMASK}; f=${bundleWord}; ${HASH_OF_F}`,
    `h=\${h%% *}; [ "\${h#\\*}" = "${bundle.sha256}" ] || exit ${SPECULATION_MISSED}`,
    firstNodeScript(candidates, then),
    `exit ${SPECULATION_MISSED}`,
  ].join('\n');
}

/** The guess a first push starts on: an address that runs nothing (only the checked
 *  `command` may start the agent before the checks answer), and that command. */
export function speculativeServe(
  layout: NodeLayout,
  bundle: { sha256: string },
): { address: AgentAddress; command: string } {
  return {
    address: {
      runtime: 'false',
      bundleWord: cachedAgentWord(layout, bundle),
      dirWord: layout.dirWord,
    },
    command: speculativeServeCommand(layout, bundle, runtimeCandidates(layout)),
  };
}

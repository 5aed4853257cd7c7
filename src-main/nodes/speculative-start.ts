// The agent's start on the same guess a fresh node's first push starts on
// (speculative-serve.ts): on a host whose cached agent is the bundle, the daemon is started
// from the connection's first moment, while the probe and the boot checks answer, instead
// of after them (its `start` is two Node starts on the node, and a round trip). Only where
// nothing must run before the agent: no verify commands, no bootstrap_script, no holder
// (a Slurm allocation's daemon is started by the allocation). The command says which
// candidate runtime it used; the bootstrap takes its answer only where the checks then
// chose that runtime and that cached agent, and starts the agent itself otherwise (a
// missed guess exits SPECULATION_MISSED having run nothing).
import type { StartOutput } from '../../src-agent/wire/protocol';
import { execCapture, parseAfterMarker } from '../transport/exec-helpers';
import type { NodeShell } from '../transport/node-shell';
import { cachedAgentWord, type AgentAddress, type NodeLayout } from './node-layout';
import { runtimeCandidates } from './runtime-probe';
import { guardedAgentCommand } from './speculative-serve';

/** What a start ahead did: the runtime it ran, and the start's answer and stderr. */
export interface StartedAhead {
  runtime: string;
  bundleWord: string;
  out: StartOutput;
  stderr: string;
}

/** The command: `start` with `args` (` --agent-id … --host-decl …`), the runtime's index in
 *  `candidates` echoed after `marker` first. */
export function speculativeStartCommand(
  layout: NodeLayout,
  bundle: { sha256: string },
  candidates: string[],
  marker: string,
  args: string,
): string {
  return guardedAgentCommand(
    layout,
    bundle,
    candidates,
    (runtime, i) =>
      `mkdir -p ${layout.dirWord} && echo "${marker} ${i}" && exec ${runtime} "$f" start --dir ${layout.dirWord}${args}`,
  );
}

/** Starts the agent ahead where the spec allows; resolves with what it did, or null (missed,
 *  failed, or not tried: the start after the checks runs and says what is wrong). */
export function startAhead(opts: {
  shell: NodeShell;
  layout: NodeLayout;
  bundle: { sha256: string };
  args: string;
  nonce: string;
  signal: AbortSignal;
}): Promise<StartedAhead | null> {
  const { layout, bundle } = opts;
  const candidates = runtimeCandidates(layout);
  const marker = `TENDER-START-AHEAD-${opts.nonce}`;
  const command = speculativeStartCommand(layout, bundle, candidates, marker, opts.args);
  return execCapture(opts.shell, command, { signal: opts.signal }).then(
    (r) => {
      const ran = new RegExp(`${marker} (\\d+)`).exec(r.stdout);
      const out = parseAfterMarker<StartOutput>(r.stdout);
      if (r.code !== 0 || !ran || !out) return null;
      const runtime = candidates[Number(ran[1])]!;
      return { runtime, bundleWord: cachedAgentWord(layout, bundle), out, stderr: r.stderr };
    },
    () => null,
  );
}

/** Whether the start ahead ran what the checks chose for `address`. */
export function startedAs(ahead: StartedAhead, address: AgentAddress): boolean {
  return ahead.runtime === address.runtime && ahead.bundleWord === address.bundleWord;
}

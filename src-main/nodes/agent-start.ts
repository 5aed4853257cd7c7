// Starting a node's agent daemon: the `start` command after the boot checks, or the answer
// of the one started ahead of them (speculative-start.ts) where it ran what the checks chose.
import type { StartOutput } from '../../src-agent/wire/protocol';
import {
  encodeHostDeclaration,
  encodeHostSetupOptions,
  type HostSetupOption,
} from '../../src-agent/wire/host-declaration';
import type { HostKeyInput } from '../../src-agent/wire/host-key';
import { execCapture, parseAfterMarker, shq } from '../transport/exec-helpers';
import type { NodeShell } from '../transport/node-shell';
import { BootstrapError, outputTail } from './bootstrap-errors';
import { PRIVATE_UMASK } from './cached-file-check';
import { agentCommand, type AgentAddress } from './node-layout';
import { startedAs, type StartedAhead } from './speculative-start';

/** ` --agent-id … --host-decl …[ --host-setup …]`: what the agent is started as. */
export function startArgs(spec: {
  agentId: string;
  hostDeclaration: HostKeyInput;
  hostSetup?: HostSetupOption[];
}): string {
  const { agentId, hostDeclaration, hostSetup } = spec;
  return (
    ` --agent-id ${shq(agentId)} --host-decl ${shq(encodeHostDeclaration(hostDeclaration))}` +
    (hostSetup?.length ? ` --host-setup ${shq(encodeHostSetupOptions(hostSetup))}` : '')
  );
}

/** Starts the daemon at `address` (or takes the start made ahead of the checks, where it
 *  ran that runtime and agent); throws BootstrapError('start_failed'). */
export async function startAgent(o: {
  shell: NodeShell;
  address: AgentAddress;
  holder: boolean;
  args: string;
  ahead: Promise<StartedAhead | null> | null;
  signal: AbortSignal;
  log: (stream: 'stderr' | 'info', line: string) => void;
}): Promise<StartOutput> {
  const early = o.ahead && (await o.ahead);
  if (early && startedAs(early, o.address)) {
    for (const line of early.stderr.split('\n').filter(Boolean)) o.log('stderr', line);
    return started(early.out, o.log);
  }
  const cmd =
    `${PRIVATE_UMASK} && mkdir -p ${o.address.dirWord} && ` +
    `${agentCommand(o.address, 'start')}${o.holder ? ' --holder' : ''}${o.args}`;
  // stdout is the machine-readable answer; stderr is for people.
  const r = await execCapture(o.shell, cmd, {
    signal: o.signal,
    onLine: (stream, line) => stream === 'stderr' && o.log(stream, line),
  });
  const out = parseAfterMarker<StartOutput>(r.stdout);
  if (r.code !== 0 || !out)
    throw new BootstrapError(
      'start_failed',
      `agent start exited ${r.code}: ${outputTail(r.stderr)}`,
    );
  return started(out, o.log);
}

function started(out: StartOutput, log: (stream: 'info', line: string) => void): StartOutput {
  log(
    'info',
    out.alreadyRunning
      ? `agent already running (pid ${out.pid})`
      : `agent started (pid ${out.pid})`,
  );
  return out;
}

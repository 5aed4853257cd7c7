import { randomId } from '../../base/ids';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import type { AgentBundle } from '../../nodes/agent-bundle';
import type { BootstrapSpec } from '../../nodes/bootstrap-session';
import { bootstrapScriptOf } from '../../nodes/bootstrap-script';
import { layoutFor } from '../../nodes/node-layout';
import type { NodeRuntime } from '../../nodes/runtime-bundle';
import type { NodeEndpoint } from '../../providers/provider';
import type { NodeShell } from '../../transport/node-shell';
import type { Timing } from '../settings/timing';
import { hostSetupOptionsFor } from './host-setup-options';

/** What a bootstrap of node `r` at `endpoint` is given. `connector` opens its shell; the
 *  bootstrap asks for a spare behind it: the job's link needs two connections (control
 *  and bulk) the moment the agent has joined (transport/shell-pool.ts). */
export function bootstrapSpec(
  ctx: {
    home: string;
    ledger: Ledger;
    agentBundle: () => AgentBundle;
    runtimeFor: (unameM: string) => NodeRuntime | null;
  },
  r: NodeRecord,
  endpoint: NodeEndpoint,
  timing: Timing,
  connector: (opts: {
    onRetry: (line: string) => void;
    spare: boolean;
  }) => (signal: AbortSignal) => Promise<NodeShell>,
  log: (line: string) => void,
): BootstrapSpec {
  return {
    connect: connector({ onRetry: log, spare: true }),
    layout: layoutFor(endpoint, r.label, ctx.home),
    agentBundle: ctx.agentBundle(),
    runtimeFor: ctx.runtimeFor,
    verify: r.desired.verify,
    agentId: `ag-${randomId(10)}`,
    hostDeclaration: r.desired.host ?? {},
    hostKey: r.desired.hostKey,
    constraints: r.desired.constraints ?? [],
    bootstrapScript: bootstrapScriptOf(r.desired.host),
    hostSetup: hostSetupOptionsFor(ctx.ledger, r),
    deadlines: timing.deadlines,
  };
}

import type { NodeManager } from '../../nodes/node-manager';
import type { NodeRecord } from '../../ledger/node-record';
import {
  afterBoot,
  afterFailedLeaseDestroy,
  isBootSettled,
  isDestroySettled,
} from './boot-replacement';
import type { JobEvent } from '../fsm/job-fsm';

export interface ProvisionDeps {
  manager: NodeManager;
  maxBootAttempts: number;
  teardownMaxAttempts: number;
  nextLabel(attempt: number): string;
  recordBootFailure(rec: NodeRecord, reason: string): void;
  note(line: string): void;
}

/** Brings the node up. A node that fails to boot (no endpoint, or a failed bootstrap) on
 *  a provider that can replace it is destroyed — and only once the provider confirms it
 *  gone — replaced by a lease on another host, up to `maxBootAttempts` leases in all. */
export async function provisionNode(
  d: ProvisionDeps,
  opts: { replaceFirst?: string; agentSeqOffset?: number } = {},
): Promise<JobEvent> {
  const { manager } = d;
  if (opts.replaceFirst) {
    // A claimed warm node that cannot serve: its lease goes (confirmed) before another comes.
    manager.send({ type: 'Destroy', reason: opts.replaceFirst });
    const gone = await manager.waitFor((r) => isDestroySettled(r, d.teardownMaxAttempts));
    if (gone.stage !== 'destroyed')
      return { type: 'NodeFault', reason: `${opts.replaceFirst}; its destroy is not confirmed` };
    manager.send({
      type: 'Replace',
      label: d.nextLabel(gone.attempt + 1),
      excludeMachine: null,
      ...(opts.agentSeqOffset !== undefined ? { agentSeqOffset: opts.agentSeqOffset } : {}),
    });
    manager.send({ type: 'Start' });
  } else if (manager.record.stage === 'new') manager.send({ type: 'Start' });
  else manager.resume();
  for (;;) {
    const boot = afterBoot(await manager.waitFor(isBootSettled), d.maxBootAttempts);
    if (boot.kind === 'ready') return { type: 'NodeReady' };
    if (boot.kind === 'fault') return { type: 'NodeFault', reason: boot.reason };
    d.note(boot.note);
    manager.send({ type: 'Destroy', reason: 'boot failure' });
    const gone = await manager.waitFor((r) => isDestroySettled(r, d.teardownMaxAttempts));
    const next = afterFailedLeaseDestroy(gone, boot);
    if (next.kind === 'fault') return { type: 'NodeFault', reason: next.reason };
    d.recordBootFailure(gone, boot.reason);
    manager.send({
      type: 'Replace',
      label: d.nextLabel(next.attempt),
      excludeMachine: next.excludeMachine,
    });
    manager.send({ type: 'Start' });
  }
}

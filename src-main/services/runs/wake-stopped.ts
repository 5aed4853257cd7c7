// A node whose instance stopped itself with outputs nobody collected (its dead-man switch,
// past `collect_grace`, on a provider where a stopped instance bills storage only): the next
// Tender that looks starts it, starts its agent again over SSH (the agent finds its
// teardown record and keeps the outputs for it), and hands the run to its driver, which
// collects the outputs and destroys the lease the usual way (confirmed). A machine whose
// GPUs were rented meanwhile may not run it again: then the lease stays, stopped, and the
// ledger says so, with what it still costs and how to destroy it.
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import { agentCommand } from '../../nodes/node-layout';
import type { ProviderRegistry } from '../../providers/registry';
import { execCapture } from '../../transport/exec-helpers';
import type { NodeFactory } from '../nodes/node-factory';

export interface WakeDeps {
  ledger: Pick<Ledger, 'getLease' | 'append'>;
  providers: Pick<ProviderRegistry, 'get'>;
  factory: Pick<NodeFactory, 'connector'>;
  now: () => number;
  /** How long a started instance may take to answer before its GPUs count as taken. */
  deadlineMs: number;
  /** Between two looks while it starts. */
  pollMs: number;
}

export type WakeOutcome = { ok: true } | { ok: false; reason: string };

/** Whether the node's lease is stopped with its disk (not outbid: a raised bid runs that
 *  one) and its provider can start it again. */
export function isStoppedWithDisk(
  d: Pick<WakeDeps, 'ledger' | 'providers'>,
  n: NodeRecord,
): boolean {
  const lease = d.ledger.getLease(n.label);
  if (!n.lease || !n.agent || lease?.state !== 'created' || lease.interruption !== 'stopped')
    return false;
  return typeof d.providers.get(n.lease.provider).startLease === 'function';
}

/** Starts the lease and its agent; resolves once the agent runs again, or with why not. */
export async function wakeStopped(d: WakeDeps, n: NodeRecord): Promise<WakeOutcome> {
  const lease = n.lease!;
  const provider = d.providers.get(lease.provider);
  const journal = (kind: string, data: Record<string, unknown> = {}) =>
    d.ledger.append({
      ts: d.now(),
      runId: n.runId,
      nodeId: n.id,
      kind,
      data: { label: n.label, ...data },
    });
  const abort = new AbortController();
  journal('lease.starting', { why: 'stopped with uncollected outputs: start, collect, destroy' });
  try {
    await provider.startLease!(lease, abort.signal);
  } catch (err) {
    return failed(`the provider refused to start it: ${(err as Error).message}`);
  }
  journal('lease.start_requested');
  const until = d.now() + d.deadlineMs;
  let last = 'not listed running yet';
  while (d.now() < until) {
    try {
      const endpoint = await provider.lookupEndpoint(lease, abort.signal);
      if (endpoint) {
        const left = Math.max(1_000, Math.min(15_000, until - d.now()));
        const shell = await d.factory.connector(endpoint, left)(abort.signal);
        try {
          const r = await execCapture(shell, agentCommand(n.agent!.address, 'start'));
          if (r.code === 0) {
            journal('lease.started');
            return { ok: true };
          }
          last = `agent start exited ${r.code}: ${r.stderr.trim().split('\n').pop() ?? ''}`;
        } finally {
          await shell.close();
        }
      }
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, d.pollMs));
  }
  return failed(
    `it did not run again within ${Math.round(d.deadlineMs / 1000)} s (${last}): its machine's GPUs are probably rented to someone else`,
  );

  function failed(why: string): WakeOutcome {
    const storage = Number(lease.metadata.storage_price_per_hour);
    const reason =
      `${lease.leaseId} stopped itself with its uncollected outputs on its disk; starting it again failed: ${why}. ` +
      `It bills storage only while stopped${Number.isFinite(storage) && storage > 0 ? ` ($${storage.toFixed(4)}/h)` : ''}; ` +
      `\`tender status\` tries again, \`tender down ${lease.leaseId}\` destroys it and the outputs`;
    journal('lease.start_failed', { reason });
    return { ok: false, reason };
  }
}

import type { OrphanView } from '../contract';
import type { Ledger } from '../ledger/ledger';
import type { LeaseFacts } from '../providers/provider';
import type { ProviderRegistry } from '../providers/registry';
import { labelPrefix } from '../base/ids';

export interface Reconciliation {
  orphans: (OrphanView & { facts: LeaseFacts })[];
  unreachable: { provider: string; error: string }[];
}

/** Asks every provider for leases carrying this install's label prefix and compares with
 *  the ledger. A labelled lease the ledger does not hold as live is an orphan: it bills and
 *  nobody tracks it. Leases without Tender's prefix are never looked at. */
export async function reconcile(
  ledger: Ledger,
  providers: ProviderRegistry,
): Promise<Reconciliation> {
  const prefix = labelPrefix(ledger.installId());
  const known = new Map(ledger.listLeases().map((l) => [l.label, l.state]));
  const out: Reconciliation = { orphans: [], unreachable: [] };
  const signal = AbortSignal.timeout(30_000);
  await Promise.all(
    providers
      .all()
      .filter((p) => !p.isConfigured || p.isConfigured())
      .map(async (p) => {
        try {
          for (const facts of await p.listLabeled(prefix, signal)) {
            const state = known.get(facts.label);
            if (state === 'requested' || state === 'created' || state === 'destroying') continue;
            out.orphans.push({
              provider: p.kind,
              leaseId: facts.leaseId,
              label: facts.label,
              facts,
            });
          }
        } catch (err) {
          out.unreachable.push({ provider: p.kind, error: (err as Error).message });
        }
      }),
  );
  out.orphans.sort((a, b) => a.label.localeCompare(b.label));
  return out;
}

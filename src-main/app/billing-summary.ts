import { dispatch } from '../api/dispatch';
import { burnRate, isLiveLease, type DestroyAllReport, type LeaseView } from '../contract';
import type { TenderCore } from '../core/tender-core';

/** What the tray and the quit guard say about money: the contract's arithmetic, which the
 *  renderer's top bar uses too (every lease that may bill counts, its known $/h adds up). */
export interface BillingSummary {
  live: LeaseView[];
  ratePerHour: number;
}

export function summarize(leases: readonly LeaseView[]): BillingSummary {
  return { live: leases.filter(isLiveLease), ratePerHour: burnRate(leases) };
}

/** The ledger's leases now, through the contract like every other caller. */
export async function billingNow(core: TenderCore): Promise<BillingSummary> {
  const r = await dispatch(core.handlers, 'lease.list', {});
  if (!r.ok) throw new Error(`could not read the ledger's leases: ${r.error.message}`);
  return summarize(r.value);
}

/** $0.74/h; a rate under a cent keeps a third digit so it never reads as $0.00. */
export function formatRate(dollars: number): string {
  const digits = dollars !== 0 && Math.abs(dollars) < 0.01 ? 3 : 2;
  return `$${dollars.toFixed(digits)}/h`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The tray's tooltip (and macOS menu-bar title): "Tender — $0.74/h, 2 leases billing". */
export function trayTitle(s: BillingSummary): string {
  if (s.live.length === 0) return 'Tender — nothing billing';
  return `Tender — ${formatRate(s.ratePerHour)}, ${plural(s.live.length, 'lease')} billing`;
}

/** One line per lease for menus and dialogs: "vastai:123 · $0.370/h · r-k3x9a2mf". */
export function leaseLine(l: LeaseView): string {
  const price = l.pricePerHour === null ? 'no price' : `$${l.pricePerHour.toFixed(3)}/h`;
  const what = l.leaseId ?? `${l.provider} (${l.state})`;
  return [what, price, l.runId].filter(Boolean).join(' · ');
}

const MAX_LISTED = 8; // a dialog is not a ledger: the rest is one "and N more" line

function listed(lines: string[]): string {
  const shown = lines.slice(0, MAX_LISTED);
  if (lines.length > MAX_LISTED) shown.push(`and ${lines.length - MAX_LISTED} more`);
  return shown.map((line) => `  ${line}`).join('\n');
}

export const QUIT_CHOICES = ['Keep them running', 'Tear down all', 'Cancel'] as const;
export type QuitChoice = 'keep' | 'teardown' | 'cancel';
export const quitChoice = (button: number): QuitChoice =>
  button === 0 ? 'keep' : button === 1 ? 'teardown' : 'cancel';

/** The quit guard's question, for a summary with at least one live lease. */
export function quitPrompt(s: BillingSummary): { message: string; detail: string } {
  return {
    message: `${plural(s.live.length, 'lease')} still billing (${formatRate(s.ratePerHour)})`,
    detail: [
      listed(s.live.map(leaseLine)),
      '',
      'Keep them running: Tender quits and the leases keep running and billing. A running job is never stopped because Tender is away (its max duration and budget still are). Once its job has ended, a node waits for Tender to collect the outputs (the collect grace, 1 h unless the run set another), then stops itself — a Vast.ai instance stops (its disk and the outputs bill as storage only) and the next Tender starts it, collects them and destroys it; on machines you own the outputs wait there; a node with no job running destroys itself after its unreachable grace (30 min). The ledger lists them all, and collects what is due, when Tender starts again.',
      'Tear down all: Tender destroys every lease, waits until each provider confirms it is gone, then quits.',
    ].join('\n'),
  };
}

/** The tray's "Tear down all" confirmation. */
export function teardownPrompt(s: BillingSummary): { message: string; detail: string } {
  return {
    message: `Tear down ${plural(s.live.length, 'lease')} (${formatRate(s.ratePerHour)})?`,
    detail: [
      listed(s.live.map(leaseLine)),
      '',
      'Every lease is destroyed, jobs still running on them stop where they are, and Tender waits until each provider confirms the lease is gone.',
    ].join('\n'),
  };
}

/** What a tear-down that did not confirm everything says; null when everything is gone.
 *  `known` are the labels of the leases the person was shown: anything else unconfirmed is
 *  an orphan, or a provider that could not be searched for orphans. */
export function teardownFailure(
  report: DestroyAllReport,
  known: readonly string[] = [],
): { message: string; detail: string } | null {
  const failed = report.outcomes.filter((o) => !o.confirmed);
  if (report.allConfirmed && failed.length === 0) return null;
  const ofKnown = failed.filter((o) => known.includes(o.label)).length;
  const message =
    ofKnown > 0 || known.length === 0
      ? `${failed.length} of ${plural(report.outcomes.length, 'lease')} could not be confirmed destroyed`
      : `${plural(known.length, 'lease')} destroyed; ${failed.length} more could not be confirmed`;
  return {
    message,
    detail: [
      listed(failed.map((o) => `${o.leaseId ?? o.label}: ${o.error ?? 'not confirmed gone'}`)),
      '',
      'What is not confirmed may still be billing. Tender keeps it in the ledger; try Tear down all again, or check the provider console.',
    ].join('\n'),
  };
}

/** What a tear-down the core refused or could not start says. */
export function teardownError(error: { message: string; hint?: string | undefined }): {
  message: string;
  detail: string;
} {
  return {
    message: 'Tear down all failed',
    detail: [
      error.message,
      ...(error.hint ? [error.hint] : []),
      '',
      'The leases may still be billing; the ledger keeps them listed.',
    ].join('\n'),
  };
}

/** Window title and progress while a tear-down runs. */
export function teardownProgress(done: number, total: number): string {
  return `Tender — tearing down: ${done} of ${plural(total, 'lease')} confirmed gone`;
}

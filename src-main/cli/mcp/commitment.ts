// The money an MCP session has committed, and whether one more run fits its budget and its
// node cap. Pure: the session gathers the figures (session-standing.ts), this judges them.

const HOUR_MS = 3_600_000;

/** One run of the session, as the commitment sees it. */
export interface RunCommitment {
  /** What its leases have billed so far (failed boot attempts included). */
  accruedUsd: number;
  /** Each lease's life limit, from its creation (every MCP run has one). */
  maxDurationMs: number;
  /** The most one of its leases may bill per hour (0 where nothing bills). */
  priceCapPerHour: number;
  /** Its created leases that still bill: their rate now and when they were created. */
  liveLeases: readonly { ratePerHour: number; createdAt: number }[];
  /** Nodes of a run still going that hold no created lease yet: each may rent one at the
   *  cap for the whole max duration. */
  nodesAwaitingLease: number;
}

/** accrued + each live lease's rate × its remaining max duration + each node still to rent
 *  at the cap × the max duration. */
export function runCommittedUsd(r: RunCommitment, now: number): number {
  const leases = r.liveLeases.reduce((sum, l) => {
    const leftMs = Math.max(0, r.maxDurationMs - Math.max(0, now - l.createdAt));
    return sum + l.ratePerHour * (leftMs / HOUR_MS);
  }, 0);
  const awaiting = r.nodesAwaitingLease * r.priceCapPerHour * (r.maxDurationMs / HOUR_MS);
  return r.accruedUsd + leases + awaiting;
}

/** What a new run asks for. */
export interface RunAsk {
  count: number;
  priceCapPerHour: number;
  maxDurationMs: number;
}

/** The most a new run can cost: every node at the cap for the whole max duration. */
export function askUsd(a: RunAsk): number {
  return a.count * a.priceCapPerHour * (a.maxDurationMs / HOUR_MS);
}

export interface SessionStanding {
  committedUsd: number;
  /** Nodes that hold a live lease or may still rent one. */
  liveNodes: number;
}

export interface Limits {
  budgetUsd: number | null;
  maxNodes: number | null;
}

export type Verdict =
  | { ok: true; commitsUsd: number; leftAfterUsd: number | null }
  | { ok: false; reason: 'budget' | 'max_nodes'; message: string; hint: string };

/** Money is compared to the hundredth of a cent, so that float dust never refuses a run
 *  that fits exactly. */
const EPSILON_USD = 1e-4;

/** Whether a run may start: its whole commitment within what the budget has left, and its
 *  nodes within the node cap. */
export function judgeRun(ask: RunAsk, standing: SessionStanding, limits: Limits): Verdict {
  const commitsUsd = askUsd(ask);
  if (limits.maxNodes !== null && standing.liveNodes + ask.count > limits.maxNodes) {
    return {
      ok: false,
      reason: 'max_nodes',
      message: `this run needs ${nodes(ask.count)}; the session has ${standing.liveNodes} of its ${limits.maxNodes} (--max-nodes) live`,
      hint: 'wait for a run of this session to end, or tender_down one; or ask for fewer nodes (count)',
    };
  }
  if (limits.budgetUsd === null) return { ok: true, commitsUsd, leftAfterUsd: null };
  const leftUsd = Math.max(0, limits.budgetUsd - standing.committedUsd);
  if (commitsUsd > leftUsd + EPSILON_USD) {
    return {
      ok: false,
      reason: 'budget',
      message: `this run commits up to ${usd(commitsUsd)} (${breakdown(ask)}); the session's budget has ${usd(leftUsd)} of ${usd(limits.budgetUsd)} left`,
      hint: 'lower count, max_price or max_duration; or tender_cancel / tender_down a run of this session to free what it commits (the budget is tender mcp --budget)',
    };
  }
  return { ok: true, commitsUsd, leftAfterUsd: leftUsd - commitsUsd };
}

/** "2 × $0.30/h × 24 h" */
export function breakdown(a: RunAsk): string {
  return `${a.count} × ${usd(a.priceCapPerHour)}/h × ${hours(a.maxDurationMs)}`;
}

/** Dollars to the cent, or to the hundredth of a cent below a cent. */
export function usd(n: number): string {
  const abs = Math.abs(n);
  return `$${abs > 0 && abs < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;
}

function hours(ms: number): string {
  const h = ms / HOUR_MS;
  return `${Number.isInteger(h) ? h : Number(h.toFixed(2))} h`;
}

function nodes(n: number): string {
  return `${n} node${n === 1 ? '' : 's'}`;
}

// One `tender mcp` session: the runs it started, what they commit, and the one way a run
// starts through MCP — read, price-capped, judged against the budget and the node cap, then
// `run.start` over the contract. Starts are serialized: an agent calling `tender_run` ten
// times at once is judged ten times in a row, each against the ones before.
import { unwrap } from '../../api/dispatch';
import { TenderError } from '../../base/tender-error';
import type {
  CommandInput,
  CommandName,
  CommandOutput,
  OfferFilter,
  RunView,
  TenderClient,
} from '../../contract';
import { mcpOrigin } from '../../contract/run-origin';
import { poolSize } from '../../jobs/job-file/job-file-distributed';
import type { CliContext } from '../context';
import { judgeRun, runCommittedUsd, type RunAsk } from './commitment';
import { providerRefusal, type McpLimits } from './mcp-flags';
import { capPrice } from './price-cap';
import { untilRented } from './rent-wait';
import { readRunRequest, type RunArgs } from './run-request';
import { runStanding, type StartedRun } from './session-standing';

/** What the session needs of a Tender core. */
export interface McpCore {
  client: TenderClient;
  /** Whether leases of a provider kind (one, or a chain) cost money. */
  bills(kind: string): boolean;
  /** Scrubs job secrets and provider keys from text bound for the agent. */
  redactor(): (text: string) => string;
  now(): number;
}

export interface Standing {
  budgetUsd: number | null;
  committedUsd: number;
  leftUsd: number | null;
  liveNodes: number;
  /** Nodes of the session's runs still to rent: the cheapest offers may be theirs. */
  nodesAwaitingLease: number;
  maxNodes: number | null;
  runs: { runId: string; committedUsd: number; liveNodes: number; view: RunView }[];
}

export interface StartedOutcome {
  run: RunView;
  commitsUsd: number;
  leftAfterUsd: number | null;
  priceCapPerHour: number;
  priceHow: string;
  maxDurationMs: number;
  /** The run's own budget, enforced by its nodes and the app; null where nothing bills. */
  runBudgetUsd: number | null;
}

export class McpSession {
  private readonly started = new Map<string, StartedRun>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly core: McpCore,
    readonly limits: McpLimits,
    private readonly ctx: CliContext,
    /** The MCP client's name, once it has said it (initialize's clientInfo). */
    private readonly clientName: () => string | undefined,
  ) {}

  async call<C extends CommandName>(cmd: C, input: CommandInput<C>): Promise<CommandOutput<C>> {
    return unwrap(await this.core.client.invoke(cmd, input));
  }

  owns(runId: string): boolean {
    return this.started.has(runId);
  }

  startedRuns(): string[] {
    return [...this.started.keys()];
  }

  /** A run id this session started, or a lease (id or label) one of its runs rented. */
  async ownsTarget(target: string): Promise<boolean> {
    if (this.owns(target)) return true;
    const leases = await this.call('lease.list', {});
    return leases.some(
      (l) => (l.leaseId === target || l.label === target) && l.runId !== null && this.owns(l.runId),
    );
  }

  /** What the session's runs commit now and how many nodes they hold. */
  async standing(): Promise<Standing> {
    const leases = await this.call('lease.list', {});
    const now = this.core.now();
    const runs = await Promise.all(
      [...this.started.values()].map(async (s) => {
        const view = await this.call('run.get', { runId: s.runId });
        const r = runStanding(s, view, leases);
        return {
          runId: s.runId,
          committedUsd: runCommittedUsd(r.commitment, now),
          liveNodes: r.liveNodes,
          awaiting: r.commitment.nodesAwaitingLease,
          view,
        };
      }),
    );
    const committedUsd = runs.reduce((n, r) => n + r.committedUsd, 0);
    const { budgetUsd, maxNodes } = this.limits;
    return {
      budgetUsd,
      committedUsd,
      leftUsd: budgetUsd === null ? null : Math.max(0, budgetUsd - committedUsd),
      liveNodes: runs.reduce((n, r) => n + r.liveNodes, 0),
      nodesAwaitingLease: runs.reduce((n, r) => n + r.awaiting, 0),
      maxNodes,
      runs,
    };
  }

  /** Starts a run unless it would take the session over its budget or its node cap;
   *  refused before anything is rented. Returns as soon as the run is recorded; the next
   *  start is judged once this run has rented (rent-wait.ts), against the offers left. */
  startRun(args: RunArgs): Promise<StartedOutcome> {
    const next = this.queue.then(() => this.startNow(args));
    this.queue = next.then(
      (o) =>
        o.priceCapPerHour > 0 ? untilRented(this.core.client, this.started.get(o.run.id)!) : null,
      () => {},
    );
    return next;
  }

  private async startNow(args: RunArgs): Promise<StartedOutcome> {
    const request = await readRunRequest(args, this.ctx);
    const refusal = providerRefusal(request.pool.provider, this.limits.providers);
    if (refusal) throw refusal;
    const standing = await this.standing();
    const cap = await capPrice(request.pool, {
      bills: (kind) => this.core.bills(kind),
      searchOffers: async (providers, filter: OfferFilter) =>
        (await this.call('offers.searchAll', { providers, filter })).offers,
      // Offers the session's earlier runs are about to rent are theirs, not this run's.
      takenBySession: standing.nodesAwaitingLease,
    });
    const ask: RunAsk = {
      count: poolSize(cap.pool),
      priceCapPerHour: cap.capPerHour,
      maxDurationMs: request.policy.maxDurationMs,
    };
    const verdict = judgeRun(ask, standing, this.limits);
    if (!verdict.ok) throw new TenderError('conflict', verdict.message, verdict.hint);

    // Bounded on the node too: its switch ends the run at this budget even if this process,
    // the agent or the laptop is gone.
    const fileBudget = request.policy.budgetUsd ?? null;
    const runBudgetUsd =
      verdict.commitsUsd > 0 ? Math.min(fileBudget ?? Infinity, verdict.commitsUsd) : fileBudget;
    const run = await this.call('run.start', {
      job: request.job,
      pool: cap.pool,
      keep: false,
      policy: {
        ...request.policy,
        afterJob: 'destroy',
        ...(runBudgetUsd === null ? {} : { budgetUsd: runBudgetUsd }),
      },
      ...(request.source === undefined ? {} : { source: request.source }),
      freshSetup: false,
      // A warm node bills for another run's share; an agent's run rents its own.
      reuseWarm: false,
      // Attributable: `mcp:<client name>` in the ledger, `tender status` and the app.
      origin: mcpOrigin(this.clientName()),
    });
    this.started.set(run.id, {
      runId: run.id,
      priceCapPerHour: cap.capPerHour,
      maxDurationMs: request.policy.maxDurationMs,
    });
    return {
      run,
      commitsUsd: verdict.commitsUsd,
      leftAfterUsd: verdict.leftAfterUsd,
      priceCapPerHour: cap.capPerHour,
      priceHow: cap.how,
      maxDurationMs: request.policy.maxDurationMs,
      runBudgetUsd,
    };
  }

  /** Stops driving the session's runs that still go: they go on on their nodes, within
   *  their max duration and budget (what `tender run` does when its terminal goes away).
   *  Returns how many were detached. */
  async detachAll(): Promise<number> {
    let detached = 0;
    for (const runId of this.started.keys()) {
      const view = await this.call('run.get', { runId }).catch(() => null);
      if (!view || (view.status !== 'pending' && view.status !== 'running')) continue;
      if (
        await this.call('run.detach', { runId }).then(
          () => true,
          () => false,
        )
      )
        detached++;
    }
    return detached;
  }
}

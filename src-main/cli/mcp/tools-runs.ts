// The tools that start, watch and stop runs: tender_run, tender_status, tender_cancel,
// tender_down. Each is one or two contract commands; the session adds only its guard rails.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TenderError } from '../../base/tender-error';
import { formatDuration } from '../../contract/policy';
import { usd } from './commitment';
import { RunArgs, DEFAULT_MAX_DURATION } from './run-request';
import { runLine, runSummary, RunSummary } from './run-summary';
import type { McpSession, Standing } from './session';
import { answer } from './tool-result';

const SessionView = z.object({
  budget_usd: z.number().nullable(),
  committed_usd: z.number(),
  left_usd: z.number().nullable(),
  live_nodes: z.number(),
  max_nodes: z.number().nullable(),
});

function sessionView(s: Standing): z.infer<typeof SessionView> {
  const r = (n: number) => Math.round(n * 1e4) / 1e4;
  return {
    budget_usd: s.budgetUsd,
    committed_usd: r(s.committedUsd),
    left_usd: s.leftUsd === null ? null : r(s.leftUsd),
    live_nodes: s.liveNodes,
    max_nodes: s.maxNodes,
  };
}

function budgetLine(s: Standing): string {
  const nodes = `${s.liveNodes}${s.maxNodes === null ? '' : ` of ${s.maxNodes}`} node(s) live`;
  if (s.budgetUsd === null)
    return `session: ${usd(s.committedUsd)} committed (no budget), ${nodes}`;
  return `session: ${usd(s.committedUsd)} of ${usd(s.budgetUsd)} committed, ${usd(s.leftUsd ?? 0)} left, ${nodes}`;
}

export function registerRunTools(server: McpServer, session: McpSession): void {
  const redact = () => session.core.redactor();

  server.registerTool(
    'tender_run',
    {
      title: 'Start a run',
      description:
        `Starts a job on rented or local nodes and returns its run id at once (poll tender_status, read tender_logs); a run after another of this session waits until that one has rented. ` +
        `Refused before anything is rented when it would take the session over its budget or node cap: a run commits nodes × $/h cap × max_duration. ` +
        `Every run gets a max_duration (default ${DEFAULT_MAX_DURATION}) and a budget its nodes enforce by themselves; nodes are destroyed when the job ends. ` +
        `On a marketplace without max_price, the cheapest matching offers now set the cap.`,
      inputSchema: RunArgs,
      outputSchema: {
        run: RunSummary,
        commits_usd: z.number(),
        price_cap_per_hour: z.number(),
        price_cap: z.string(),
        max_duration: z.string(),
        run_budget_usd: z.number().nullable(),
        session: SessionView,
      },
    },
    (args) =>
      answer(redact, async () => {
        const started = await session.startRun(args);
        const standing = await session.standing();
        const run = runSummary(started.run);
        return {
          structured: {
            run,
            commits_usd: started.commitsUsd,
            price_cap_per_hour: started.priceCapPerHour,
            price_cap: started.priceHow,
            max_duration: formatDuration(started.maxDurationMs),
            run_budget_usd: started.runBudgetUsd,
            session: sessionView(standing),
          },
          text:
            `started ${run.run_id} (${run.job} on ${run.provider} × ${run.nodes.length}); ` +
            `commits up to ${usd(started.commitsUsd)} (${started.priceHow}, max_duration ${formatDuration(started.maxDurationMs)}). ` +
            `${budgetLine(standing)}. Poll tender_status; read tender_logs.`,
        };
      }),
  );

  server.registerTool(
    'tender_status',
    {
      title: 'Runs and budget',
      description:
        "One run (run_id), or every run this session started, with the session's committed spend, what its budget has left and its live nodes.",
      inputSchema: { run_id: z.string().min(1).optional() },
      outputSchema: { session: SessionView, runs: z.array(RunSummary) },
      annotations: { readOnlyHint: true },
    },
    ({ run_id }) =>
      answer(redact, async () => {
        const standing = await session.standing();
        const views =
          run_id === undefined
            ? standing.runs.map((r) => r.view)
            : [await session.call('run.get', { runId: run_id })];
        const runs = views.map(runSummary);
        const lines =
          runs.length === 0 ? ['no runs started in this session yet'] : runs.map(runLine);
        return {
          structured: { session: sessionView(standing), runs },
          text: [...lines, budgetLine(standing)].join('\n'),
        };
      }),
  );

  server.registerTool(
    'tender_cancel',
    {
      title: 'Cancel a run',
      description:
        'Stops a run this session started: the job gets SIGTERM, outputs are collected, nodes torn down. Returns at once; poll tender_status until it is cancelled.',
      inputSchema: { run_id: z.string().min(1) },
      outputSchema: { run: RunSummary },
      annotations: { destructiveHint: true },
    },
    ({ run_id }) =>
      answer(redact, async () => {
        refuseUnlessOwned(session, session.owns(run_id), run_id, 'cancel');
        const view = await session.call('run.cancel', { runId: run_id });
        const run = runSummary(view);
        return {
          structured: { run },
          text: `cancelling ${run_id}: stopping the job, collecting outputs, tearing down. ${runLine(run)}`,
        };
      }),
  );

  server.registerTool(
    'tender_down',
    {
      title: 'Destroy leases',
      description:
        "Destroys the live leases of a run (its id) or one lease (its id or label) that this session started, and waits until the provider confirms each is gone. The run's job stops for good.",
      inputSchema: { target: z.string().min(1).describe('A run id (r-…), a lease id or a label') },
      outputSchema: {
        destroyed: z.array(
          z.object({
            lease: z.string(),
            provider: z.string(),
            confirmed: z.boolean(),
            error: z.string().nullable(),
          }),
        ),
        all_confirmed: z.boolean(),
      },
      annotations: { destructiveHint: true },
    },
    ({ target }) =>
      answer(redact, async () => {
        refuseUnlessOwned(session, await session.ownsTarget(target), target, 'down');
        const report = await session.call('lease.destroy', { target });
        const destroyed = report.outcomes.map((o) => ({
          lease: o.leaseId ?? o.label,
          provider: o.provider,
          confirmed: o.confirmed,
          error: o.error,
        }));
        const gone = destroyed.filter((d) => d.confirmed).length;
        const text =
          destroyed.length === 0
            ? `nothing to tear down: ${target} holds no live lease`
            : `${gone} of ${destroyed.length} lease(s) confirmed destroyed` +
              destroyed
                .filter((d) => !d.confirmed)
                .map(
                  (d) => `\nNOT confirmed gone: ${d.provider} ${d.lease}: ${d.error ?? 'unknown'}`,
                )
                .join('');
        return { structured: { destroyed, all_confirmed: report.allConfirmed }, text };
      }),
  );
}

/** An agent stops only what its session started, unless the person said otherwise. */
function refuseUnlessOwned(
  session: McpSession,
  owned: boolean,
  target: string,
  what: 'cancel' | 'down',
): void {
  if (owned || session.limits.allowDownAny) return;
  throw new TenderError(
    'conflict',
    `${target} was not started by this MCP session: tender_${what} is refused`,
    'an agent stops only what it started; a person can run `tender ' +
      (what === 'cancel' ? 'cancel' : 'down') +
      '` themselves, or start tender mcp with --allow-down-any',
  );
}

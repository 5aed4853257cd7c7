// The tools that read: tender_logs, tender_metrics, tender_offers. Read-only, over the same
// contract commands as `tender logs`, `tender metrics` and `tender offers`.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TenderError } from '../../base/tender-error';
import { LogChannel } from '../../contract';
import { MARKETPLACES } from '../../providers/failover/chain';
import { usd } from './commitment';
import { MAX_LINES, readLogLines } from './log-lines';
import { providerRefusal } from './mcp-flags';
import type { McpSession } from './session';
import { answer } from './tool-result';

/** Points of each metric an answer carries: the latest, enough to see a trend. */
const POINTS_KEPT = 50;

export function registerReadingTools(server: McpServer, session: McpSession): void {
  const redact = () => session.core.redactor();

  server.registerTool(
    'tender_logs',
    {
      title: "A node's log",
      description:
        "The job's output on one node (default the first): the last `tail` lines (default 100), or every line from `from_seq` on. Returns next_seq: pass it as from_seq to read only what is new.",
      inputSchema: {
        run_id: z.string().min(1),
        node: z.string().min(1).optional().describe('node-0, node-1… (default node-0)'),
        tail: z.number().int().min(1).max(MAX_LINES).optional(),
        from_seq: z.number().int().min(1).optional(),
        channel: LogChannel.optional().describe(
          'agent: the job (default); events: what Tender did; bootstrap: the node boot',
        ),
      },
      outputSchema: {
        run_id: z.string(),
        node: z.string(),
        status: z.string(),
        lines: z.array(
          z.object({
            seq: z.number(),
            stream: z.enum(['stdout', 'stderr', 'info']),
            text: z.string(),
          }),
        ),
        next_seq: z.number(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ run_id, node, tail, from_seq, channel }) =>
      answer(redact, async () => {
        if (tail !== undefined && from_seq !== undefined)
          throw new TenderError('bad_input', 'give tail or from_seq, not both');
        const view = await session.call('run.get', { runId: run_id });
        const log = await readLogLines(session, view, {
          ...(node === undefined ? {} : { node }),
          channel: channel ?? 'agent',
          ...(tail === undefined ? {} : { tail }),
          ...(from_seq === undefined ? {} : { fromSeq: from_seq }),
        });
        const body = log.lines.map((l) => l.text).join('\n');
        return {
          structured: {
            run_id,
            node: log.node,
            status: view.status,
            lines: log.lines,
            next_seq: log.nextSeq,
          },
          text: `${body}${body ? '\n' : ''}[${run_id} ${log.node}: ${view.status}; ${log.lines.length} line(s); next_seq ${log.nextSeq}]`,
        };
      }),
  );

  server.registerTool(
    'tender_metrics',
    {
      title: "A run's metrics",
      description:
        'The series a job wrote as JSON lines to $TENDER_METRICS (e.g. {"step": 10, "loss": 0.31}): per node and metric, the number of points, the latest and the last 50.',
      inputSchema: {
        run_id: z.string().min(1),
        node: z.string().min(1).optional(),
      },
      outputSchema: {
        run_id: z.string(),
        series: z.array(
          z.object({
            node: z.string(),
            cell: z.string().nullable(),
            name: z.string(),
            count: z.number(),
            last: z.tuple([z.number(), z.number()]).nullable(),
            points: z.array(z.tuple([z.number(), z.number()])),
          }),
        ),
        skipped_lines: z.number(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ run_id, node }) =>
      answer(redact, async () => {
        const nodeName =
          node === undefined ? undefined : node.startsWith('node-') ? node : `node-${node}`;
        const m = await session.call('run.metrics', {
          runId: run_id,
          ...(nodeName ? { nodeName } : {}),
        });
        const series = m.series.map((s) => ({
          node: s.nodeId.slice(s.nodeId.indexOf('/') + 1),
          cell: s.cellId,
          name: s.name,
          count: s.points.length,
          last: s.points.at(-1) ?? null,
          points: s.points.slice(-POINTS_KEPT),
        }));
        const text =
          series.length === 0
            ? `run ${run_id} has no metrics yet (a job appends JSON lines to $TENDER_METRICS)`
            : series
                .map(
                  (s) =>
                    `${s.node}${s.cell ? ` ${s.cell}` : ''} ${s.name}: ${s.last?.[1]} at ${s.last?.[0]} (${s.count} points)`,
                )
                .join('\n');
        return { structured: { run_id, series, skipped_lines: m.skipped }, text };
      }),
  );

  server.registerTool(
    'tender_offers',
    {
      title: 'Marketplace offers',
      description:
        "Rentable machines of the marketplaces this session may use, cheapest all-in $/h first (GPU plus storage). Use a price here as tender_run's max_price.",
      inputSchema: {
        provider: z
          .string()
          .min(1)
          .optional()
          .describe('vastai, runpod or lambda (default: all allowed)'),
        gpu: z.string().min(1).optional(),
        gpus: z.number().int().min(1).max(16).optional(),
        min_vram_gb: z.number().positive().optional(),
        max_price: z.number().positive().optional(),
        region: z.string().min(1).optional(),
        limit: z.number().int().min(1).max(50).optional().describe('default 10'),
      },
      outputSchema: {
        offers: z.array(
          z.object({
            provider: z.string(),
            offer_id: z.string(),
            gpu: z.string(),
            gpus: z.number(),
            vram_gb: z.number(),
            price_per_hour: z.number(),
            reliability: z.number().nullable(),
            location: z.string().nullable(),
          }),
        ),
        errors: z.array(z.object({ provider: z.string(), message: z.string() })),
      },
      annotations: { readOnlyHint: true },
    },
    (a) =>
      answer(redact, async () => {
        const allowed = session.limits.providers.filter((p) => MARKETPLACES.includes(p));
        if (a.provider !== undefined) {
          const refusal = providerRefusal(a.provider, allowed);
          if (refusal) throw refusal;
        }
        if (allowed.length === 0)
          throw new TenderError(
            'bad_input',
            'this session may use no marketplace (tender mcp --providers)',
            'local and ssh nodes need no offers: tender_run them directly',
          );
        const found = await session.call('offers.searchAll', {
          providers: a.provider === undefined ? allowed : a.provider.split(','),
          filter: {
            ...(a.gpu ? { gpu: a.gpu } : {}),
            ...(a.gpus ? { gpuCount: a.gpus } : {}),
            ...(a.min_vram_gb ? { minVramGb: a.min_vram_gb } : {}),
            ...(a.max_price ? { maxPrice: a.max_price } : {}),
            ...(a.region ? { region: a.region } : {}),
            limit: a.limit ?? 10,
          },
        });
        const offers = found.offers.slice(0, a.limit ?? 10).map((o) => ({
          provider: o.provider,
          offer_id: o.offerId,
          gpu: o.gpuName,
          gpus: o.gpuCount,
          vram_gb: o.vramGb,
          price_per_hour: o.pricePerHour,
          reliability: o.reliability,
          location: o.location,
        }));
        const errors = found.sources
          .filter((s) => s.error !== null)
          .map((s) => ({ provider: s.provider, message: s.error!.message }));
        const lines = offers.map(
          (o) =>
            `${o.provider} ${o.offer_id}: ${o.gpus}× ${o.gpu} ${o.vram_gb} GB, ${usd(o.price_per_hour)}/h${o.location ? `, ${o.location}` : ''}`,
        );
        for (const e of errors) lines.push(`${e.provider}: ${e.message}`);
        return {
          structured: { offers, errors },
          text:
            lines.length > 0
              ? lines.join('\n')
              : 'no offers match: loosen gpu, max_price or min_vram_gb',
        };
      }),
  );
}

// Sweeps: a job's `[sweep]` table of axes — the cartesian product, in
// the order the axes are written (the first varies slowest), then any explicit cells. Each
// cell is one job with its own TENDER_JOB_ID and TENDER_PARAM_<KEY> values; the cells queue
// over the run's nodes. Pure; the job file loader and the run service use it.
import { z } from 'zod';

/** A parameter name: what follows TENDER_PARAM_ in an environment variable. */
export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ParamName = z.string().regex(PARAM_NAME, {
  message:
    'a param name is a letter or _ then letters, digits or _ (it becomes TENDER_PARAM_<NAME>)',
});

/** More cells than this is a mistake (a typo'd axis), not a sweep. */
export const MAX_CELLS = 10_000;

export const SweepSpec = z
  .object({
    /** Axis name → its values, in order. */
    axes: z.record(
      ParamName,
      z.array(z.string()).min(1, { message: 'an axis needs at least one value' }),
    ),
    /** Cells added after the product, each a full set of its values. */
    cells: z.array(z.record(ParamName, z.string())).default([]),
  })
  .strict()
  .superRefine((s, ctx) => {
    const n = cellCount(s);
    if (n === 0)
      ctx.addIssue({ code: 'custom', message: 'a sweep needs at least one axis or one cell' });
    if (n > MAX_CELLS)
      ctx.addIssue({
        code: 'custom',
        message: `the sweep has ${n} cells, more than ${MAX_CELLS}: split it, or drop an axis`,
      });
  });
export type SweepSpec = z.infer<typeof SweepSpec>;
export type SweepSpecInput = z.input<typeof SweepSpec>;

/** One cell: its index, its id (TENDER_JOB_ID is `<runId>.<id>`), its own values. */
export interface SweepCell {
  index: number;
  id: string;
  /** Only the values the sweep sets (the job's own params come under them). */
  values: Record<string, string>;
}

function productSize(axes: Record<string, string[]>): number {
  const lists = Object.values(axes);
  return lists.length === 0 ? 0 : lists.reduce((n, l) => n * l.length, 1);
}

export function cellCount(s: { axes: Record<string, string[]>; cells?: unknown[] }): number {
  return productSize(s.axes) + (s.cells?.length ?? 0);
}

/** `j0`…`j9`, `j00`…`j23`: zero-padded to the widest index, so they sort. */
export function cellId(index: number, total: number): string {
  const width = String(Math.max(total - 1, 0)).length;
  return `j${String(index).padStart(width, '0')}`;
}

/** The cells, product first (first axis slowest), then the explicit ones. */
export function expandSweep(s: SweepSpec): SweepCell[] {
  const names = Object.keys(s.axes);
  const rows: Record<string, string>[] = [];
  if (names.length > 0) {
    const walk = (i: number, acc: Record<string, string>): void => {
      if (i === names.length) {
        rows.push({ ...acc });
        return;
      }
      const name = names[i]!;
      for (const v of s.axes[name]!) walk(i + 1, { ...acc, [name]: v });
    };
    walk(0, {});
  }
  rows.push(...s.cells);
  return rows.map((values, index) => ({ index, id: cellId(index, rows.length), values }));
}

/** `--grid LR=1e-4,3e-4` (repeatable) → axes; a bad one throws what to write instead. */
export function parseGridFlag(flags: string[]): Record<string, string[]> {
  const axes: Record<string, string[]> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    const name = eq > 0 ? flag.slice(0, eq).trim() : '';
    if (!PARAM_NAME.test(name))
      throw new Error(
        `--grid ${flag}: write NAME=v1,v2 with NAME a letter or _ then letters, digits or _ (e.g. --grid LR=1e-4,3e-4)`,
      );
    const values = flag
      .slice(eq + 1)
      .split(',')
      .map((v) => v.trim());
    if (values.some((v) => v === ''))
      throw new Error(
        `--grid ${flag}: an empty value; list at least one, comma-separated (e.g. --grid ${name}=1,2)`,
      );
    if (axes[name])
      throw new Error(`--grid ${name} is given twice: list every value once (--grid ${name}=a,b)`);
    axes[name] = values;
  }
  return axes;
}

/** `j03`, `r-….j03` (its TENDER_JOB_ID) or `3` name the same cell. */
export function sameCell(runId: string, id: string, index: number, asked: string): boolean {
  return asked === id || asked === `${runId}.${id}` || asked === String(index);
}

/** A cell's status. `queued`: waiting for a free node. */
export const CellStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);
export type CellStatus = z.infer<typeof CellStatus>;

/** One cell as the ledger has it. */
export const CellView = z.object({
  runId: z.string(),
  id: z.string(),
  index: z.number(),
  /** The sweep's values for this cell. */
  values: z.record(z.string(), z.string()),
  status: CellStatus,
  /** The node that runs (or last ran) it: `node-2`. */
  node: z.string().nullable(),
  /** How many times it was started (a lost node's cell goes back to the queue). */
  tries: z.number(),
  exitCode: z.number().nullable(),
  reason: z.string().nullable(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  /** Its records in the node's agent log: `[from, to]` (to null while it runs). */
  seq: z.tuple([z.number(), z.number().nullable()]).nullable(),
  /** A memoized cell: the run and cell whose outputs it took instead of running. */
  cacheHit: z.object({ runId: z.string(), cellId: z.string() }).nullable(),
  outputsDir: z.string(),
});
export type CellView = z.infer<typeof CellView>;

/** What a sweep is expected to take, when a cell's duration is known from an earlier run
 *  of the job: node-hours (what bills) and hours on the clock (cells in waves of `nodes`).
 *  Setup and scheduling are left out: an estimate, said as one. */
export const SweepEstimate = z.object({
  cells: z.number(),
  nodes: z.number(),
  /** The median cell of `basedOn`, in seconds; null: no earlier sweep of this job. */
  cellSeconds: z.number().nullable(),
  basedOn: z.string().nullable(),
  nodeHours: z.number().nullable(),
  hours: z.number().nullable(),
});
export type SweepEstimate = z.infer<typeof SweepEstimate>;

export function estimateSweep(
  cells: number,
  nodes: number,
  earlier: { runId: string; ms: number[] } | null,
): SweepEstimate {
  const used = Math.max(1, Math.min(nodes, cells));
  if (!earlier || earlier.ms.length === 0)
    return { cells, nodes: used, cellSeconds: null, basedOn: null, nodeHours: null, hours: null };
  const sorted = [...earlier.ms].sort((a, b) => a - b);
  const cellMs = sorted[Math.floor(sorted.length / 2)]!;
  return {
    cells,
    nodes: used,
    cellSeconds: cellMs / 1000,
    basedOn: earlier.runId,
    nodeHours: (cells * cellMs) / 3_600_000,
    hours: (Math.ceil(cells / used) * cellMs) / 3_600_000,
  };
}

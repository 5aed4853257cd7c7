import { MAX_CELLS, PARAM_NAME, cellCount } from '../../../src-main/contract';

/** A line of the Sweep field that does not say an axis, and what to write instead. */
export interface AxisProblem {
  /** 1-based, as the field shows it. */
  line: number;
  message: string;
}

export interface ParsedAxes {
  /** Axis name → its values, in the order written (the first axis varies slowest). */
  axes: Record<string, string[]>;
  problems: AxisProblem[];
}

const FORM = 'write NAME = v1, v2 (e.g. LR = 1e-4, 3e-4)';

/**
 * The composer's Sweep field: one axis a line, `LR = 1e-4, 3e-4`. Values are split at
 * commas and trimmed; one that holds a comma or starts with a quote is written in double
 * quotes, JSON-style (`NOTE = "a, b", c`); a TOML list pasted in (`LR = ["1e-4", "3e-4"]`)
 * is read the same. Blank lines and `#` comments are skipped. What the job file loader
 * refuses is refused here, by line: a bad name, an axis with no value or an empty one, a
 * value listed twice, an axis named twice.
 */
export function parseSweepAxes(text: string): ParsedAxes {
  const axes: Record<string, string[]> = {};
  const problems: AxisProblem[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const t = raw.trim();
    if (t === '' || t.startsWith('#')) return;
    const eq = t.indexOf('=');
    if (eq === -1) return problems.push({ line, message: `no "=": ${FORM}` });
    const name = t.slice(0, eq).trim();
    if (!PARAM_NAME.test(name))
      return problems.push({
        line,
        message: name
          ? `${name} is not a param name: a letter or _ then letters, digits or _ (it becomes TENDER_PARAM_${name.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase()})`
          : `no name before "=": ${FORM}`,
      });
    if (axes[name])
      return problems.push({ line, message: `${name} is given twice: list its values once` });
    const values = splitValues(t.slice(eq + 1));
    if (typeof values === 'string') return problems.push({ line, message: `${name}: ${values}` });
    if (values.length === 0)
      return problems.push({ line, message: `${name} has no values: ${FORM}` });
    if (values.some((v) => v === null))
      return problems.push({
        line,
        message: `${name} has an empty value (two commas, or one at the end; "" is an empty one)`,
      });
    const twice = values.find((v, j) => values.indexOf(v) !== j);
    if (twice !== undefined)
      return problems.push({ line, message: `${name} lists ${twice} twice` });
    axes[name] = values as string[];
  });
  return { axes, problems };
}

/** The values after `=` (null: nothing between two commas), or what is wrong with them. */
function splitValues(text: string): (string | null)[] | string {
  let t = text.trim();
  if (t.startsWith('[')) {
    if (!t.endsWith(']')) return 'a list opened with [ is not closed';
    t = t.slice(1, -1).trim();
  }
  if (t === '') return [];
  const values: (string | null)[] = [];
  let i = 0;
  for (;;) {
    while (t[i] === ' ' || t[i] === '\t') i++;
    if (t[i] === '"') {
      const end = closingQuote(t, i);
      if (end === -1) return 'a quoted value is not closed';
      values.push(JSON.parse(t.slice(i, end + 1)) as string);
      i = end + 1;
      while (t[i] === ' ' || t[i] === '\t') i++;
      if (i < t.length && t[i] !== ',') return 'write a comma after a quoted value';
    } else {
      const comma = t.indexOf(',', i);
      values.push(t.slice(i, comma === -1 ? t.length : comma).trim() || null);
      i = comma === -1 ? t.length : comma;
    }
    if (i >= t.length) return values;
    i++; // the comma
    if (i >= t.length) return [...values, null];
  }
}

/** Where the JSON string starting at `start` ends; -1 when it does not. */
function closingQuote(t: string, start: number): number {
  for (let i = start + 1; i < t.length; i++) {
    if (t[i] === '\\') i++;
    else if (t[i] === '"') {
      try {
        JSON.parse(t.slice(start, i + 1));
        return i;
      } catch {
        return -1;
      }
    }
  }
  return -1;
}

/** Axes as the field shows them, one a line; a value that would not read back as itself
 *  (a comma, a quote, spaces at an end, nothing at all) in double quotes. */
export function formatSweepAxes(axes: Record<string, readonly string[]>): string {
  return Object.entries(axes)
    .map(([name, values]) => `${name} = ${values.map(formatValue).join(', ')}`)
    .join('\n');
}

function formatValue(v: string): string {
  return v === '' || v !== v.trim() || /[,"]/.test(v) || v.startsWith('[') ? JSON.stringify(v) : v;
}

/** "6 cells over 2 nodes" and what that means (a run uses at most one node per cell); a
 *  problem when the sweep is too big to be one. Null: no sweep. */
export function sweepHint(
  axes: Record<string, string[]>,
  extraCells: number,
  nodes: number,
): { text: string; problem: boolean } | null {
  const cells = cellCount({ axes, cells: new Array<unknown>(extraCells) });
  if (cells === 0) return null;
  if (cells > MAX_CELLS)
    return {
      text: `${cells.toLocaleString('en-US')} cells, more than ${MAX_CELLS.toLocaleString('en-US')}: split the sweep, or drop an axis`,
      problem: true,
    };
  const used = Math.min(nodes, cells);
  const head = `${cells} cell${cells === 1 ? '' : 's'} over ${used} node${used === 1 ? '' : 's'}`;
  if (nodes > cells)
    return {
      text: `${head}: a node needs a cell, so ${nodes - cells} fewer than asked`,
      problem: false,
    };
  if (cells > nodes)
    return {
      text: `${head}: each node runs setup once, then its cells one after another`,
      problem: false,
    };
  return { text: `${head}: one cell each`, problem: false };
}

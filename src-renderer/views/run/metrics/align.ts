import type uPlot from 'uplot';

/** A line's points, `[x, y]`, as `run.metrics` gives them (usually in x order). */
export type Points = readonly (readonly [number, number])[];

/**
 * Lines of `[x, y]` points as uPlot's aligned data: one sorted x array, the union of every
 * line's x, and one y array per line, null where that line has no point at that x (drawn
 * across with `spanGaps`). A line whose x goes back (a restarted job) is put in x order,
 * the later point winning at an x seen twice. Linear in the points when each line is in
 * order and the lines share their steps (a sweep's cells), which is the live case.
 */
export function alignLines(lines: readonly Points[]): uPlot.AlignedData {
  const sorted = lines.map(inOrder);
  let xs: number[] = [];
  for (const line of [...sorted].sort((a, b) => b.xs.length - a.xs.length)) {
    if (xs.length === 0) xs = line.xs;
    else if (!isSubset(line.xs, xs)) xs = mergeUnique(xs, line.xs);
  }
  const ys = sorted.map((line): (number | null)[] => {
    // A line with every step of the union is its own y column.
    if (line.xs.length === xs.length) return line.ys;
    const y = new Array<number | null>(xs.length).fill(null);
    let j = 0;
    for (let i = 0; i < line.xs.length; i++) {
      const x = line.xs[i]!;
      while (xs[j]! < x) j++;
      y[j] = line.ys[i]!;
    }
    return y;
  });
  return [xs, ...ys];
}

interface Line {
  xs: number[];
  ys: number[];
}

/** The points in strictly rising x (a stable sort when needed; the last point at an x). */
function inOrder(points: Points): Line {
  let isOrdered = true;
  for (let i = 1; i < points.length && isOrdered; i++)
    isOrdered = points[i]![0] > points[i - 1]![0];
  if (isOrdered) {
    const xs = new Array<number>(points.length);
    const ys = new Array<number>(points.length);
    for (let i = 0; i < points.length; i++) {
      xs[i] = points[i]![0];
      ys[i] = points[i]![1];
    }
    return { xs, ys };
  }
  const list = points
    .map((p, i) => ({ p, i }))
    .sort((a, b) => a.p[0] - b.p[0] || a.i - b.i)
    .map(({ p }) => p);
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of list) {
    if (xs.length > 0 && xs[xs.length - 1] === x) ys[ys.length - 1] = y;
    else {
      xs.push(x);
      ys.push(y);
    }
  }
  return { xs, ys };
}

/** Whether every x of `part` (rising) is in `all` (rising). */
function isSubset(part: readonly number[], all: readonly number[]): boolean {
  if (part.length > all.length) return false;
  let j = 0;
  for (const x of part) {
    while (j < all.length && all[j]! < x) j++;
    if (all[j] !== x) return false;
  }
  return true;
}

/** Two rising lists as one, each value once. */
function mergeUnique(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i]! : b[j]!;
    if (i < a.length && a[i] === x) i++;
    if (j < b.length && b[j] === x) j++;
    out.push(x);
  }
  return out;
}

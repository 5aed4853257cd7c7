/** Pure geometry of a sparkline: utilisation (0–100%) over time, in a width × height box. */
export interface SparkPoint {
  at: number;
  /** Percent; null: no reading (the line breaks there). */
  util: number | null;
}

/** The SVG path: x by time from the first point to the last, y 100% at the top. A point
 *  without a reading breaks the line; a lone reading is a short flat stroke. Empty: ''. */
export function sparklinePath(
  points: readonly SparkPoint[],
  width: number,
  height: number,
): string {
  const t0 = points[0]?.at ?? 0;
  const span = (points.at(-1)?.at ?? t0) - t0;
  const x = (at: number) => (span > 0 ? ((at - t0) / span) * width : width);
  const y = (util: number) => height - (Math.min(100, Math.max(0, util)) / 100) * height;
  const parts: string[] = [];
  let isDrawing = false;
  for (const p of points) {
    if (p.util === null) {
      isDrawing = false;
      continue;
    }
    parts.push(`${isDrawing ? 'L' : 'M'}${x(p.at).toFixed(1)},${y(p.util).toFixed(1)}`);
    isDrawing = true;
  }
  const readings = points.filter((p) => p.util !== null);
  if (readings.length === 1) {
    const yy = y(readings[0]!.util!).toFixed(1);
    return `M${(width - 3).toFixed(1)},${yy} L${width.toFixed(1)},${yy}`;
  }
  return parts.join(' ');
}

/** The y of a utilisation threshold line (percent), on the same scale as the path. */
export function thresholdY(percent: number, height: number): number {
  return Number((height - (Math.min(100, Math.max(0, percent)) / 100) * height).toFixed(1));
}

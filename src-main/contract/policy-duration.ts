// Durations as a person writes them in a job file or Settings ("90s", "1h30m").

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

/** "90s", "20m", "6h", "1h30m", "2d" → milliseconds; "none"/"off" → null; undefined when the
 *  text is not a duration. */
export function parseDuration(text: string): number | null | undefined {
  const t = text.trim().toLowerCase().replace(/\s+/g, '');
  if (t === 'none' || t === 'off') return null;
  if (!DURATION.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms > 0 ? Math.round(ms) : undefined;
}

/** Milliseconds → the shortest exact text parseDuration reads back ("1h30m", "45s"). The
 *  agent words its own messages with a twin (shortDuration, src-agent/daemon/telemetry/
 *  gpu-idle-rule.ts) that keeps tenths below a minute; neither may import the other. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return 'none';
  if (ms < 1_000) return `${ms}ms`;
  let rest = Math.round(ms / 1_000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}

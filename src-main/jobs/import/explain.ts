import type { Outcome } from './key-outcomes';

/** The `--explain` table: each input key, what became of it, and why. */
export function explainTable(outcomes: readonly Outcome[]): string {
  const rows = outcomes.map((o) => [o.path, o.kind, detail(o)] as const);
  const w0 = Math.max(3, ...rows.map((r) => r[0].length));
  const w1 = 8;
  const head = `${'key'.padEnd(w0)}  ${'outcome'.padEnd(w1)}  detail`;
  return (
    [head, ...rows.map(([k, kind, d]) => `${k.padEnd(w0)}  ${kind.padEnd(w1)}  ${d}`)].join('\n') +
    '\n'
  );
}

function detail(o: Outcome): string {
  switch (o.kind) {
    case 'mapped':
      return `→ ${o.to}`;
    case 'warned':
      return o.to === undefined ? `left out: ${o.why}` : `→ ${o.to}; ${o.why}`;
    case 'refused':
      return `${o.why} — fix: ${o.fix}`;
  }
}

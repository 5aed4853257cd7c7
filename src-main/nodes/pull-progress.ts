/** How far an image pull has got, as far as a provider's status line says: bytes of bytes
 *  ("Downloading 6.8GB/15GB", "12.3 GB / 15 GB"), a percentage ("loading 45%"), or neither
 *  ("Pulling fs layer"), in which case only the raw line is shown. Docker prints decimal
 *  units (kB, MB, GB); the binary ones (MiB, GiB) are read as such. */
export interface PullProgress {
  doneBytes: number | null;
  totalBytes: number | null;
  /** 0–100: said outright, or done/total. */
  percent: number | null;
}

const UNIT: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

const AMOUNT = String.raw`(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)\b`;
const BYTES_OF = new RegExp(`${AMOUNT}\\s*(?:/|of)\\s*${AMOUNT}`, 'i');
const PERCENT = /(\d{1,3}(?:\.\d+)?)\s*%/;

export function parsePullProgress(line: string): PullProgress | null {
  const pair = BYTES_OF.exec(line);
  if (pair) {
    const done = bytes(pair[1]!, pair[2]!);
    const total = bytes(pair[3]!, pair[4]!);
    if (total > 0 && done <= total)
      return { doneBytes: done, totalBytes: total, percent: round1((done / total) * 100) };
  }
  const pct = PERCENT.exec(line);
  if (pct) {
    const p = Number(pct[1]);
    if (p <= 100) return { doneBytes: null, totalBytes: null, percent: p };
  }
  return null;
}

/** The line with its numbers taken out: two lines of one shape are the same step of a pull
 *  at different amounts ("Downloading 1.2GB/15GB", "Downloading 3.4GB/15GB"). */
export function shapeOf(line: string): string {
  return line.replace(/\d+(?:\.\d+)?/g, '#').replace(/\[[=> -]*\]/g, '[bar]');
}

/** One number that grows as a pull of this shape goes on: the bytes, else the percentage. */
export function amountOf(p: PullProgress | null): number | null {
  return p?.doneBytes ?? p?.percent ?? null;
}

/** "6.8 GB", "640 MB": decimal units, as Docker prints them. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['TB', 1e12],
    ['GB', 1e9],
    ['MB', 1e6],
    ['kB', 1e3],
  ] as const) {
    if (n >= size) return `${Number((n / size).toFixed(n / size >= 100 ? 0 : 1))} ${unit}`;
  }
  return `${Math.round(n)} B`;
}

function bytes(n: string, unit: string): number {
  return Number(n) * (UNIT[unit.toLowerCase()] ?? 1);
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

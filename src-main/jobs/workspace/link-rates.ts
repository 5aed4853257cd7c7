// The link rate each SSH endpoint's pushes achieved (link-meter.ts), remembered so that the
// next push to it starts with the right choice (compression-plan.ts) instead of measuring
// again. One small JSON file in the data folder (`cache/link-rates.json`, 0600: it names the
// hosts a researcher uses); without a file (tests, benches), a process-wide memory. A
// record older than `MAX_AGE_MS` is not trusted (a laptop moves between networks), and the
// newest measurement replaces the last: links change.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LinkMeasure } from './link-meter';

const MAX_AGE_MS = 7 * 24 * 3600_000;
/** Endpoints kept; the least recently measured go first. */
const MAX_ENDPOINTS = 200;

interface RateRecord extends LinkMeasure {
  atMs: number;
}

/** Where the CLI and the app keep it. */
export function linkRatesFile(home: string): string {
  return join(home, 'cache', 'link-rates.json');
}

const inMemory = new Map<string, RateRecord>();

export class LinkRates {
  /** `file`: the JSON file; undefined keeps rates in this process only. */
  constructor(
    private readonly file: string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the last push to `endpoint` measured of its link lately, or undefined. */
  get(endpoint: string): LinkMeasure | undefined {
    const r = this.read().get(endpoint);
    if (!r || this.now() - r.atMs > MAX_AGE_MS || r.atMs > this.now() + 60_000) return undefined;
    return { bytesPerS: r.bytesPerS, isLinkBound: r.isLinkBound };
  }

  /** A push to `endpoint` measured `link`. Best effort: an unwritable file only costs the
   *  next push its head start. */
  set(endpoint: string, link: LinkMeasure): void {
    const all = this.read();
    all.delete(endpoint);
    all.set(endpoint, {
      bytesPerS: Math.round(link.bytesPerS),
      isLinkBound: link.isLinkBound,
      atMs: this.now(),
    });
    while (all.size > MAX_ENDPOINTS) all.delete(all.keys().next().value!);
    if (!this.file) {
      inMemory.clear();
      for (const [k, v] of all) inMemory.set(k, v);
      return;
    }
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.tmp-${process.pid}`;
      writeFileSync(tmp, JSON.stringify({ version: 1, endpoints: Object.fromEntries(all) }), {
        mode: 0o600,
      });
      renameSync(tmp, this.file); // replaces a link at that name, never writes through it
    } catch {
      // see above
    }
  }

  /** Every record, oldest first. */
  private read(): Map<string, RateRecord> {
    if (!this.file) return new Map(inMemory);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      return new Map(); // none yet, or unreadable: measured again
    }
    const endpoints = (parsed as { endpoints?: unknown }).endpoints;
    const out = new Map<string, RateRecord>();
    if (typeof endpoints !== 'object' || endpoints === null) return out;
    const rows = Object.entries(endpoints as Record<string, unknown>).filter(
      (e): e is [string, RateRecord] => isRecord(e[1]),
    );
    rows.sort((a, b) => a[1].atMs - b[1].atMs);
    for (const [k, v] of rows) {
      out.set(k, { bytesPerS: v.bytesPerS, isLinkBound: v.isLinkBound, atMs: v.atMs });
    }
    return out;
  }
}

function isRecord(v: unknown): v is RateRecord {
  const r = v as RateRecord;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isFinite(r.bytesPerS) &&
    r.bytesPerS > 0 &&
    typeof r.isLinkBound === 'boolean' &&
    Number.isFinite(r.atMs)
  );
}

/** Forgets what this process remembers without a file (tests). */
export function forgetLinkRates(): void {
  inMemory.clear();
}

import type { NodePull } from '../contract';
import { amountOf, parsePullProgress, shapeOf, type PullProgress } from './pull-progress';

/** What a provider said of a lease that is not usable yet: its own words, and whether they
 *  are about its image being pulled (Vast.ai `loading`, a RunPod pod without a runtime). */
export interface LeaseReport {
  line: string;
  isImagePull: boolean;
}

export interface PullRules {
  /** Every lease is waited for this long from the start of the wait, whatever it says (the
   *  endpoint deadline of Settings). It is the whole bound for a lease that reports no image
   *  pull at all: a host that says nothing cannot be told from a dead one that bills. */
  silentMs: number;
  /** A lease whose image pull is under way is waited for past `silentMs` for as long as the
   *  pull moves: it is given up once it has made no progress for this long (`pull_stall`). */
  stallMs: number;
}

export type PullVerdict =
  { kind: 'waiting'; givesUpAt: number } | { kind: 'give_up'; reason: string };

/** `pull_stall`'s default: Vast.ai's docs give 10–60 min for a fresh pull of a big image;
 *  ten minutes without any progress is a host that will not finish. */
export const DEFAULT_PULL_STALL_MS = 10 * 60_000;

/** A host that invents a new line at every look is bounded in memory, not in patience. */
const MAX_SHAPES = 500;

/** The stall rule, pure: reports and the times they came at in, a verdict out. Progress is
 *  a line of a shape not seen before (a new layer, a new step of the pull), or a higher
 *  amount (bytes, percent) in a shape seen before. The same words again, or a number that
 *  does not grow (an elapsed-time counter), are not progress. */
export class PullWatch {
  private last: LeaseReport | null = null;
  private progress: PullProgress | null = null;
  private pullingSince: number | null = null;
  private lastProgressAt: number | null = null;
  private readonly best = new Map<string, number | null>();

  constructor(
    private readonly since: number,
    private readonly rules: PullRules,
  ) {}

  observe(report: LeaseReport, now: number): void {
    this.last = report;
    this.progress = report.isImagePull ? parsePullProgress(report.line) : null;
    if (!report.isImagePull) return;
    const moved = this.hasMoved(report.line);
    // The first word of a pull is where it starts, not a move.
    if (this.pullingSince === null) this.pullingSince = now;
    else if (moved) this.lastProgressAt = now;
  }

  givesUpAt(): number {
    const silent = this.since + this.rules.silentMs;
    if (this.pullingSince === null) return silent;
    return Math.max(silent, (this.lastProgressAt ?? this.pullingSince) + this.rules.stallMs);
  }

  verdict(now: number): PullVerdict {
    const at = this.givesUpAt();
    if (now < at) return { kind: 'waiting', givesUpAt: at };
    return { kind: 'give_up', reason: this.reason(now) };
  }

  /** What the view shows; null before the provider said anything. */
  snapshot(): NodePull | null {
    if (!this.last) return null;
    return {
      line: this.last.line,
      isImagePull: this.last.isImagePull,
      doneBytes: this.progress?.doneBytes ?? null,
      totalBytes: this.progress?.totalBytes ?? null,
      percent: this.progress?.percent ?? null,
      since: this.since,
      pullingSince: this.pullingSince,
      lastProgressAt: this.lastProgressAt,
      givesUpAt: this.givesUpAt(),
      stallMs: this.rules.stallMs,
    };
  }

  private hasMoved(line: string): boolean {
    const shape = shapeOf(line);
    const amount = amountOf(this.progress);
    if (!this.best.has(shape)) {
      if (this.best.size < MAX_SHAPES) this.best.set(shape, amount);
      return true;
    }
    const before = this.best.get(shape) ?? null;
    if (amount === null || (before !== null && amount <= before)) return false;
    this.best.set(shape, amount);
    return true;
  }

  private reason(now: number): string {
    const said = this.last ? ` (last said: "${this.last.line}")` : '';
    if (this.pullingSince === null)
      return `no SSH endpoint within ${minutes(this.rules.silentMs)}${said}`;
    if (this.lastProgressAt === null)
      return `its image pull showed no progress in ${minutes(now - this.pullingSince)}${said}`;
    return `its image pull stalled: no progress for ${minutes(now - this.lastProgressAt)}${said}`;
  }
}

function minutes(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

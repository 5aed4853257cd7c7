import type { JobSpec } from '../../contract';

/** A value shorter than this is a word, not a secret: redacting it would blank out
 *  ordinary text. (The agent's log redactor draws the line at 6; a notification errs the
 *  other way, since a blanked word costs nothing there.) */
const MIN_SECRET_LENGTH = 4;

/** The secret values of the jobs this process started, in memory only, so that what Tender
 *  says about a run (a notification, a webhook body) can be scrubbed of them. The ledger
 *  keeps jobs redacted, so a run started by another process is scrubbed of what this one
 *  knows (provider keys) only; its reasons are the ones the ledger shows anyway. Every run
 *  start remembers its values before the run begins (services/runs/run-start.ts). */
export class SecretMemory {
  private readonly values = new Set<string>();

  /** `{ secret, value }` values, and `{ secret, fromEnv }` ones as `env` resolves them. */
  rememberJob(job: JobSpec, env: NodeJS.ProcessEnv): void {
    for (const v of Object.values(job.env)) {
      if (typeof v === 'string') continue;
      this.remember('value' in v ? [v.value] : [env[v.fromEnv] ?? '']);
    }
  }

  remember(values: Iterable<string>): void {
    for (const value of values) {
      // A multi-line secret (a PEM key) may surface one line at a time.
      for (const part of [value, ...value.split(/\r?\n/)])
        if (part.trim().length >= MIN_SECRET_LENGTH) this.values.add(part);
    }
  }

  /** Replaces every remembered value, and each of `extra` (provider keys), with `***`. */
  redactor(extra: readonly (string | null)[] = []): (text: string) => string {
    const needles = new Set(this.values);
    for (const e of extra) if (e && e.length >= MIN_SECRET_LENGTH) needles.add(e);
    // Longest first, so a secret that contains another is replaced whole.
    const sorted = [...needles].sort((a, b) => b.length - a.length);
    return (text) => {
      let out = text;
      for (const needle of sorted) if (out.includes(needle)) out = out.split(needle).join('***');
      return out;
    };
  }
}

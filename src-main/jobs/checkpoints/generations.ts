import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pullIndexFile } from '../outputs/pull-index';
import { mkdirPrivate, writePrivateFile } from '../../base/private-files';

// A node's pulled checkpoints as generations (runs/<run>/<node>/checkpoints/): every pull
// lands in a new folder `gen-<n>/` beside the last (unchanged files hard-linked from it),
// and becomes the restore source only once it is complete (its `gen-<n>.json` written
// last). A pull that brings no checkpoint file while an earlier generation holds some is
// dropped: an empty or failed pull can never replace the only copy. The last few
// generations are kept.

/** Complete generations kept, the newest included: a damaged newest still leaves older
 *  ones. */
export const KEEP_GENERATIONS = 3;

export interface Generation {
  n: number;
  /** The job attempt (0-based) whose node it was pulled from. */
  attempt: number;
  /** When the pull completed (the job's clock). */
  at: number;
  /** Checkpoint files it holds, and their bytes. */
  files: number;
  bytes: number;
  dir: string;
}

export type CommitOutcome =
  | { kind: 'kept'; generation: Generation }
  /** Empty while `restoreSource` holds files: removed, the earlier one stays the source. */
  | { kind: 'dropped'; restoreSource: Generation };

const GEN = /^gen-(\d{6,})$/;
const META = /^gen-(\d{6,})\.json$/;

export class CheckpointGenerations {
  /** Generation numbers handed to pulls that have not committed yet. */
  private readonly inFlight = new Set<number>();
  private nextN: number;

  constructor(
    readonly root: string,
    private readonly keep = KEEP_GENERATIONS,
  ) {
    mkdirPrivate(root);
    this.nextN = Math.max(0, ...this.numbersOnDisk()) + 1;
  }

  /** Complete generations, oldest first. */
  list(): Generation[] {
    const out: Generation[] = [];
    for (const name of readdirSync(this.root)) {
      const m = META.exec(name);
      if (!m) continue;
      const n = Number(m[1]);
      const meta = readMeta(join(this.root, name));
      if (meta && existsSync(this.dirOf(n))) out.push({ ...meta, n, dir: this.dirOf(n) });
    }
    return out.sort((a, b) => a.n - b.n);
  }

  /** What a recovered attempt restores: the newest complete generation that holds files. */
  restoreSource(complete: Generation[] = this.list()): Generation | null {
    return complete.filter((g) => g.files > 0).pop() ?? null;
  }

  /** Where the next pull lands (a folder that does not exist yet) and the folder it is
   *  incremental against (its unchanged files are linked, never sent again): the newest
   *  generation, else the single folder an earlier Tender pulled into (the root itself). */
  begin(): { n: number; dir: string; base: string | null } {
    const n = this.nextN++;
    this.inFlight.add(n);
    const last = this.list().pop();
    const legacy = existsSync(pullIndexFile(this.root)) ? this.root : null;
    return { n, dir: this.dirOf(n), base: last?.dir ?? legacy };
  }

  /** The pull for `n` failed: whatever it left is removed. */
  abandon(n: number): void {
    this.inFlight.delete(n);
    this.remove(n);
  }

  /** The pull for `n` landed in its folder: it becomes complete and, unless it holds no
   *  checkpoint file while an earlier generation does, the restore source. */
  commit(n: number, facts: Omit<Generation, 'n' | 'dir'>): CommitOutcome {
    this.inFlight.delete(n);
    const source = this.restoreSource();
    if (facts.files === 0 && source) {
      this.remove(n);
      return { kind: 'dropped', restoreSource: source };
    }
    const file = this.metaOf(n);
    writePrivateFile(`${file}.tmp`, JSON.stringify(facts));
    renameSync(`${file}.tmp`, file);
    this.prune();
    return { kind: 'kept', generation: { ...facts, n, dir: this.dirOf(n) } };
  }

  /** Keeps the newest `keep` complete generations (the restore source always among them)
   *  and removes what an interrupted pull left behind. */
  private prune(): void {
    const complete = this.list();
    const source = this.restoreSource(complete);
    const keep = new Set(complete.slice(-this.keep).map((g) => g.n));
    if (source) keep.add(source.n);
    for (const n of this.numbersOnDisk()) {
      if (!keep.has(n) && !this.inFlight.has(n)) this.remove(n);
    }
    for (const name of readdirSync(this.root)) {
      const partial = /^gen-(\d+)\.partial-/.exec(name);
      if (partial && !this.inFlight.has(Number(partial[1])))
        rmSync(join(this.root, name), { recursive: true, force: true });
    }
  }

  private numbersOnDisk(): number[] {
    const ns = new Set<number>();
    for (const name of readdirSync(this.root)) {
      const m = GEN.exec(name) ?? META.exec(name);
      if (m) ns.add(Number(m[1]));
    }
    return [...ns];
  }

  private remove(n: number): void {
    rmSync(this.metaOf(n), { force: true });
    rmSync(pullIndexFile(this.dirOf(n)), { force: true });
    rmSync(this.dirOf(n), { recursive: true, force: true });
  }

  private dirOf(n: number): string {
    return join(this.root, `gen-${String(n).padStart(6, '0')}`);
  }

  private metaOf(n: number): string {
    return `${this.dirOf(n)}.json`;
  }
}

function readMeta(file: string): Omit<Generation, 'n' | 'dir'> | null {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as Partial<Generation>;
    if (typeof m.attempt !== 'number' || typeof m.at !== 'number') return null;
    if (typeof m.files !== 'number' || typeof m.bytes !== 'number') return null;
    return { attempt: m.attempt, at: m.at, files: m.files, bytes: m.bytes };
  } catch {
    return null;
  }
}

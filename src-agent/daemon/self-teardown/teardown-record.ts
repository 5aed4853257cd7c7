// `D/teardown.json`: what the dead-man switch did. It outlives the daemon, so a restarted
// agent continues a teardown it had begun and every client can still read what happened.
import { readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../../atomic-file';
import type { SelfTeardown, TeardownRecord } from '../../wire/protocol';
import type { Firing } from '../dead-man/dead-man';

type TeardownState = TeardownRecord['state'];

/** The file: the record, plus how to tear down (no secrets) for a restarted daemon. */
type StoredTeardown = TeardownRecord & { teardown: SelfTeardown };

const FINAL_STATES: readonly TeardownState[] = [
  'destroy_requested',
  'stop_requested',
  'files_removed',
  'outputs_kept',
  'failed',
];

/** Nothing is left to do in this state (a restarted daemon only reports it). */
export function isFinal(state: TeardownState): boolean {
  return FINAL_STATES.includes(state);
}

export class TeardownRecorder {
  private stored: StoredTeardown | null;

  constructor(
    private readonly path: string,
    private readonly onChange: (record: TeardownRecord) => void,
    private readonly onWriteError: (err: Error) => void,
  ) {
    this.stored = readStored(path);
  }

  get record(): TeardownRecord | null {
    if (!this.stored) return null;
    const { teardown: _how, ...record } = this.stored;
    return record;
  }

  get teardown(): SelfTeardown | null {
    return this.stored?.teardown ?? null;
  }

  begin(firing: Firing, teardown: SelfTeardown, at: number): void {
    this.stored = { ...firing, at, state: 'stopping_job', teardown };
    this.save();
  }

  /** Forgets a teardown that left the node whole (`outputs_kept`): a Tender came back. */
  clear(): void {
    this.stored = null;
    rmSync(this.path, { force: true });
  }

  /** Records a new state (a repeated state changes nothing); `error` replaces the last. */
  set(state: TeardownState, error?: string): void {
    const s = this.stored;
    if (!s || (s.state === state && s.error === error)) return;
    const { error: _previous, ...rest } = s;
    this.stored = error === undefined ? { ...rest, state } : { ...rest, state, error };
    this.save();
  }

  private save(): void {
    const stored = this.stored as StoredTeardown;
    try {
      writeFileAtomic(this.path, `${JSON.stringify(stored)}\n`);
    } catch (err) {
      this.onWriteError(err as Error); // the teardown goes on: the node must still go
    }
    this.onChange(this.record as TeardownRecord);
  }
}

function readStored(path: string): StoredTeardown | null {
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as StoredTeardown;
    return typeof s.state === 'string' && typeof s.teardown?.kind === 'string' ? s : null;
  } catch {
    return null; // none yet, or unreadable: this node has not torn down
  }
}

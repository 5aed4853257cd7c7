import { create } from 'zustand';
import type { DestroyAllReport } from '../../src-main/contract';
import { call, describeError } from '../api/backend';
import { toast } from '../components/toasts';
import type { TeardownTarget } from './teardown-progress';

export type TeardownPhase = 'idle' | 'confirm' | 'running' | 'done';

interface TeardownState {
  phase: TeardownPhase;
  /** Whether the dialog shows; a teardown in flight goes on while it is hidden. */
  isOpen: boolean;
  targets: TeardownTarget[];
  report: DestroyAllReport | null;
  /** The call itself failed (another process holds the ledger, the connection dropped). */
  error: string | null;
  /** When the teardown started and, once it did, finished (for the elapsed time). */
  startedAt: number | null;
  endedAt: number | null;
  /** Shows the dialog: the confirmation, or the teardown in flight or just finished. */
  open(): void;
  close(): void;
  /** Destroys every live lease and every orphan; `targets` is what the person confirmed. */
  start(targets: TeardownTarget[], onSettled: () => void): Promise<void>;
}

/** Tear down all's state lives outside the button, so the ledger can open it too and a
 *  teardown in flight survives closing its dialog. */
/** Nothing confirmed, nothing in flight, nothing to report. */
const IDLE = {
  phase: 'idle',
  isOpen: false,
  targets: [],
  report: null,
  error: null,
  startedAt: null,
  endedAt: null,
} as const satisfies Partial<TeardownState>;

export const useTeardown = create<TeardownState>()((set, get) => ({
  ...IDLE,
  open: () => {
    const { phase } = get();
    if (phase === 'idle') set({ phase: 'confirm', isOpen: true });
    else set({ isOpen: true });
  },
  close: () => {
    const { phase } = get();
    if (phase === 'running') set({ isOpen: false });
    else set(IDLE);
  },
  start: async (targets, onSettled) => {
    if (get().phase === 'running') return;
    set({
      phase: 'running',
      targets,
      report: null,
      error: null,
      startedAt: Date.now(),
      endedAt: null,
    });
    try {
      const report = await call('lease.destroyAll', { leases: true, orphans: true });
      set({ phase: 'done', report, endedAt: Date.now() });
    } catch (err) {
      set({ phase: 'done', error: describeError(err), endedAt: Date.now() });
    } finally {
      onSettled();
    }
    // Finished behind a closed dialog: a clean result is a toast, a failure opens it again.
    const { isOpen, report, error } = get();
    if (isOpen) return;
    if (report?.allConfirmed && !error) {
      toast(`Tear down all: ${report.outcomes.length} verified gone; nothing of it bills`);
      get().close();
    } else {
      set({ isOpen: true });
    }
  },
}));

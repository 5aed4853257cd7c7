import { Notification, type BrowserWindow } from 'electron';
import { dispatch } from '../api/dispatch';
import { LIVE_LEASE_STATES, type DestroyAllReport, type Result } from '../contract';
import type { TenderCore } from '../core/tender-core';
import {
  billingNow,
  teardownError,
  teardownFailure,
  teardownProgress,
  teardownPrompt,
} from './billing-summary';
import { messageBox } from './message-box';

/** "Tear down all" for the shell (the quit guard and the tray): the core's lease.destroyAll
 *  through the contract, with its progress in the window's title and progress bar while the
 *  ledger view shows each lease going. One at a time: a second call joins the first. */
export class TeardownRunner {
  private running: Promise<Result<DestroyAllReport>> | null = null;
  private text: string | null = null;

  constructor(
    private readonly core: TenderCore,
    private readonly window: () => BrowserWindow | null,
    private readonly onProgress: (text: string | null) => void,
  ) {}

  get isRunning(): boolean {
    return this.running !== null;
  }

  /** "Tender — tearing down: 1 of 3 leases confirmed gone", while running. */
  get progress(): string | null {
    return this.text;
  }

  /** Destroys every live lease (and every orphan) and waits for the providers to confirm;
   *  `labels` are the live leases the caller showed, whose progress is counted. */
  run(labels: readonly string[]): Promise<Result<DestroyAllReport>> {
    this.running ??= this.execute(labels).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async execute(labels: readonly string[]): Promise<Result<DestroyAllReport>> {
    const pending = new Set(labels);
    const total = pending.size;
    const show = () => {
      const done = total - pending.size;
      this.text = teardownProgress(done, total);
      const win = this.window();
      if (win && !win.isDestroyed()) {
        win.setTitle(this.text);
        // Above 1 is "indeterminate": nothing confirmed yet is not the same as no progress.
        win.setProgressBar(done === 0 ? 2 : done / Math.max(total, 1));
      }
      this.onProgress(this.text);
    };
    const off = this.core.bus.on('lease.changed', (lease) => {
      if (pending.has(lease.label) && !LIVE_LEASE_STATES.includes(lease.state)) {
        pending.delete(lease.label);
        show();
      }
    });
    show();
    try {
      return await dispatch(this.core.handlers, 'lease.destroyAll', {});
    } finally {
      off();
      this.text = null;
      const win = this.window();
      if (win && !win.isDestroyed()) {
        win.setTitle('Tender');
        win.setProgressBar(-1);
      }
      this.onProgress(null);
    }
  }
}

/** The tray's "Tear down all": confirm, run, then say how it ended (a notification when
 *  everything is gone, a dialog naming what is not). */
export async function confirmAndTearDown(
  core: TenderCore,
  runner: TeardownRunner,
  win: BrowserWindow | null,
): Promise<void> {
  const summary = await billingNow(core);
  if (summary.live.length === 0 || runner.isRunning) return;
  const button = await messageBox(win, {
    type: 'warning',
    ...teardownPrompt(summary),
    buttons: ['Tear down all', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
  });
  if (button !== 0) return;
  const labels = summary.live.map((l) => l.label);
  const result = await runner.run(labels);
  const failure = result.ok ? teardownFailure(result.value, labels) : teardownError(result.error);
  if (failure) {
    await messageBox(win, { type: 'error', ...failure, buttons: ['OK'], defaultId: 0 });
  } else if (Notification.isSupported()) {
    const n = result.ok ? result.value.outcomes.length : 0;
    new Notification({
      title: 'Tender — nothing billing',
      body: `${n} lease${n === 1 ? '' : 's'} destroyed; each provider confirmed it is gone.`,
    }).show();
  }
}

import { app, type BrowserWindow } from 'electron';
import type { TenderCore } from '../core/tender-core';
import {
  billingNow,
  QUIT_CHOICES,
  quitChoice,
  quitPrompt,
  teardownError,
  teardownFailure,
} from './billing-summary';
import { revealWindow } from './main-window';
import { messageBox } from './message-box';
import type { TeardownRunner } from './teardown-all';

type Phase = 'running' | 'asking' | 'tearing-down' | 'closing' | 'closed';

export interface QuitGuardDeps {
  core: TenderCore | null;
  teardown: TeardownRunner | null;
  window: () => BrowserWindow | null;
  /** Stops what uses the core (tray, IPC) before it closes. */
  beforeClose: () => void;
}

/** Every way out (Cmd-Q, File › Quit, closing the window, the tray's Quit) comes here. With
 *  live leases it asks: keep them running, tear them all down first, or cancel. A tear-down
 *  that leaves anything unconfirmed says so and stays. The core is always closed before
 *  the process exits. */
export class QuitGuard {
  private phase: Phase = 'running';
  private isAskingAgain = false;

  constructor(private readonly deps: QuitGuardDeps) {}

  install(): void {
    app.on('before-quit', (e) => this.intercept(e));
  }

  /** For the window's `close` event: closing the window is quitting. */
  intercept(e: { preventDefault(): void }): void {
    if (this.phase === 'closed') return;
    e.preventDefault();
    void this.request();
  }

  async request(): Promise<void> {
    if (this.phase === 'tearing-down') return this.askWhileTearingDown();
    if (this.phase !== 'running') {
      revealWindow(this.deps.window());
      return;
    }
    this.phase = 'asking';
    let next: 'quit' | 'stay' | 'handled';
    try {
      next = await this.decide();
    } catch (err) {
      next = await this.askAfterError(err);
    }
    if (next === 'quit') await this.exit();
    else if (next === 'stay') this.phase = 'running';
  }

  private async decide(): Promise<'quit' | 'stay' | 'handled'> {
    const { core, teardown } = this.deps;
    if (!core || !teardown) return 'quit';
    const summary = await billingNow(core);
    if (summary.live.length === 0) return 'quit';
    const win = this.deps.window();
    revealWindow(win);
    const choice = quitChoice(
      await messageBox(win, {
        type: 'warning',
        ...quitPrompt(summary),
        buttons: [...QUIT_CHOICES],
        defaultId: 2,
        cancelId: 2,
      }),
    );
    if (choice === 'keep') return 'quit';
    if (choice === 'cancel') return 'stay';

    this.phase = 'tearing-down';
    const labels = summary.live.map((l) => l.label);
    const result = await teardown.run(labels);
    if (this.phase !== 'tearing-down') return 'handled'; // "Quit now" was chosen meanwhile
    this.phase = 'asking';
    const failure = result.ok ? teardownFailure(result.value, labels) : teardownError(result.error);
    if (!failure) return 'quit';
    const button = await messageBox(this.deps.window(), {
      type: 'error',
      ...failure,
      buttons: ['Back to Tender', 'Quit anyway'],
      defaultId: 0,
      cancelId: 0,
    });
    return button === 1 ? 'quit' : 'stay';
  }

  /** A quit asked for while tearing down: wait (the default), or leave the rest. */
  private async askWhileTearingDown(): Promise<void> {
    const win = this.deps.window();
    revealWindow(win);
    if (this.isAskingAgain) return;
    this.isAskingAgain = true;
    const button = await messageBox(win, {
      type: 'warning',
      message: 'Tender is still tearing down',
      detail: [
        this.deps.teardown?.progress ?? '',
        '',
        'Tender quits by itself once every lease is confirmed gone.',
        'Quitting now leaves each lease not yet confirmed in the ledger as still billing; tear it down again when Tender starts.',
      ].join('\n'),
      buttons: ['Wait', 'Quit now'],
      defaultId: 0,
      cancelId: 0,
    }).finally(() => {
      this.isAskingAgain = false;
    });
    if (button === 1 && this.phase === 'tearing-down') await this.exit();
  }

  private async askAfterError(err: unknown): Promise<'quit' | 'stay'> {
    const button = await messageBox(this.deps.window(), {
      type: 'error',
      message: 'Tender could not check for leases still billing',
      detail: `${(err as Error).message}\n\nQuitting leaves any live lease running and billing; the ledger lists it when Tender starts again.`,
      buttons: ['Back to Tender', 'Quit anyway'],
      defaultId: 0,
      cancelId: 0,
    });
    return button === 1 ? 'quit' : 'stay';
  }

  private async exit(): Promise<void> {
    this.phase = 'closing';
    try {
      this.deps.beforeClose();
    } catch (err) {
      console.error('tender: stopping the shell failed:', err);
    }
    try {
      await this.deps.core?.close();
    } catch (err) {
      console.error('tender: closing the core failed:', err);
    }
    this.phase = 'closed';
    app.quit();
  }
}

import { Menu, nativeImage, Tray, type NativeImage } from 'electron';
import type { TenderCore } from '../core/tender-core';
import {
  billingNow,
  formatRate,
  leaseLine,
  trayTitle,
  type BillingSummary,
} from './billing-summary';
import { trayIconPng, type TrayIconState } from './tray-icon-png';

const REFRESH_MS = 30_000; // a safety net: every lease change also arrives as lease.changed
const COALESCE_MS = 250; // a tear-down of 20 leases is 60 events: one redraw for the burst
const MENU_LEASES = 6; // the window's ledger lists them all

export interface TrayActions {
  show(): void;
  tearDownAll(): void;
  quit(): void;
}

/** The menu-bar / notification-area item: the live burn rate always in sight, with Show,
 *  Tear down all and Quit. Its numbers come from lease.list (the same ledger rows the
 *  window's top bar sums), redrawn on every lease.changed and every 30 s. */
export class BillingTray {
  private readonly tray: Tray;
  private readonly icons: Record<TrayIconState, NativeImage>;
  private readonly offLeaseChanged: () => void;
  private readonly timer: NodeJS.Timeout;
  private pending: NodeJS.Timeout | null = null;
  private summary: BillingSummary | null = null;
  private progress: string | null = null;
  private error: string | null = null;

  constructor(
    private readonly core: TenderCore,
    private readonly actions: TrayActions,
  ) {
    this.icons = { billing: icon('billing'), idle: icon('idle') };
    this.tray = new Tray(this.icons.idle);
    // Windows and Linux: a click shows the window; macOS opens the menu itself.
    this.tray.on('click', () => actions.show());
    this.offLeaseChanged = core.bus.on('lease.changed', () => this.scheduleRefresh());
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
    this.draw();
    void this.refresh();
  }

  /** While a tear-down runs its progress replaces the rate in the tooltip. */
  setProgress(text: string | null): void {
    this.progress = text;
    this.draw();
  }

  async refresh(): Promise<void> {
    try {
      this.summary = await billingNow(this.core);
      this.error = null;
    } catch (err) {
      this.error = (err as Error).message;
    }
    this.draw();
  }

  destroy(): void {
    this.offLeaseChanged();
    clearInterval(this.timer);
    if (this.pending) clearTimeout(this.pending);
    if (!this.tray.isDestroyed()) this.tray.destroy();
  }

  private scheduleRefresh(): void {
    this.pending ??= setTimeout(() => {
      this.pending = null;
      void this.refresh();
    }, COALESCE_MS);
  }

  private draw(): void {
    if (this.tray.isDestroyed()) return;
    const s = this.summary;
    const title = this.error
      ? 'Tender — cannot read the ledger'
      : (this.progress ?? (s ? trayTitle(s) : 'Tender'));
    const isBilling = (s?.live.length ?? 0) > 0;
    this.tray.setImage(isBilling ? this.icons.billing : this.icons.idle);
    this.tray.setToolTip(title);
    // macOS shows text beside the icon: the rate alone, as short as it can be.
    if (process.platform === 'darwin') {
      this.tray.setTitle(isBilling && s && !this.progress ? formatRate(s.ratePerHour) : '');
    }
    // Linux redraws a changed menu only when it is set again, so it is rebuilt each time.
    this.tray.setContextMenu(this.menu(title, s));
  }

  private menu(title: string, s: BillingSummary | null): Menu {
    const live = s?.live ?? [];
    const leases: Electron.MenuItemConstructorOptions[] = live
      .slice(0, MENU_LEASES)
      .map((l) => ({ label: leaseLine(l), enabled: false }));
    if (live.length > MENU_LEASES) {
      leases.push({ label: `and ${live.length - MENU_LEASES} more in the ledger`, enabled: false });
    }
    return Menu.buildFromTemplate([
      { label: title, enabled: false },
      ...leases,
      { type: 'separator' },
      { label: 'Show Tender', click: () => this.actions.show() },
      {
        label: 'Tear Down All…',
        enabled: live.length > 0 && this.progress === null,
        click: () => this.actions.tearDownAll(),
      },
      { type: 'separator' },
      { label: 'Quit Tender', click: () => this.actions.quit() },
    ]);
  }
}

function icon(state: TrayIconState): NativeImage {
  const image = nativeImage.createFromBuffer(trayIconPng(state, 16), { scaleFactor: 1 });
  image.addRepresentation({ scaleFactor: 2, buffer: trayIconPng(state, 32) });
  return image;
}

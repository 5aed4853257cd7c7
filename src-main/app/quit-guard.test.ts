import type { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DestroyAllReport, LeaseView } from '../contract';
import { leaseView } from '../contract/lease-view.test-util';
import { EventBus } from '../base/event-bus';
import type { TenderCore } from '../core/tender-core';

// The Electron binary cannot run here: `electron` is replaced by the little the guard
// touches: app events and quit, and message boxes answered from a script.
const electron = vi.hoisted(() => {
  const answers: number[] = [];
  const boxes: { message: string; buttons: string[] }[] = [];
  return { answers, boxes, app: null as unknown as EventEmitter & { quit: () => void } };
});
vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const app = Object.assign(new Emitter(), { quit: vi.fn() });
  electron.app = app;
  return {
    app,
    dialog: {
      showMessageBox: vi.fn(async (_win: unknown, opts: { message: string; buttons: string[] }) => {
        electron.boxes.push(opts);
        return { response: electron.answers.shift() ?? 0 };
      }),
    },
    Notification: { isSupported: () => false },
    BrowserWindow: class {},
    shell: {},
  };
});

const { QuitGuard } = await import('./quit-guard');
const { TeardownRunner } = await import('./teardown-all');

const lease = (label: string, over: Partial<LeaseView> = {}): LeaseView =>
  leaseView({ label, leaseId: `vastai:${label}`, nodeId: null, pricePerHour: 0.37, ...over });

interface Harness {
  guard: InstanceType<typeof QuitGuard>;
  core: { close: ReturnType<typeof vi.fn>; destroyAll: ReturnType<typeof vi.fn> };
  order: string[];
  win: { title: string; progress: number[] };
  finishTeardown: () => void;
}

/** A core whose ledger holds `leases`; destroyAll destroys those in `destroys` (all by
 *  default) and, with `hold`, waits for finishTeardown(). */
function harness(leases: LeaseView[], opts: { fails?: string[]; hold?: boolean } = {}): Harness {
  const bus = new EventBus();
  const order: string[] = [];
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const destroyAll = vi.fn(async (): Promise<DestroyAllReport> => {
    if (opts.hold) await held;
    const outcomes = leases.map((l) => {
      const confirmed = !opts.fails?.includes(l.label);
      if (confirmed) {
        l.state = 'destroyed';
        bus.emit('lease.changed', l);
      }
      return {
        label: l.label,
        leaseId: l.leaseId,
        provider: l.provider,
        confirmed,
        error: confirmed ? null : 'HTTP 500 from DELETE',
      };
    });
    return { outcomes, allConfirmed: outcomes.every((o) => o.confirmed) };
  });
  const close = vi.fn(async () => {
    order.push('core.close');
  });
  const core = {
    bus,
    handlers: { 'lease.list': async () => leases, 'lease.destroyAll': destroyAll },
    close,
  } as unknown as TenderCore;
  const win = { title: 'Tender', progress: [] as number[] };
  const fakeWindow = {
    isDestroyed: () => false,
    isMinimized: () => false,
    isVisible: () => true,
    focus: () => {},
    setTitle: (t: string) => (win.title = t),
    setProgressBar: (p: number) => win.progress.push(p),
  };
  const window = () => fakeWindow as unknown as Electron.BrowserWindow;
  const guard = new QuitGuard({
    core,
    teardown: new TeardownRunner(core, window, () => {}),
    window,
    beforeClose: () => order.push('beforeClose'),
  });
  vi.mocked(electron.app.quit).mockImplementation(() => order.push('app.quit'));
  return { guard, core: { close, destroyAll }, order, win, finishTeardown: () => release() };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  electron.answers.length = 0;
  electron.boxes.length = 0;
  vi.mocked(electron.app.quit).mockReset();
});

describe('quit guard', () => {
  it('quits straight away when nothing bills, closing the core first', async () => {
    const h = harness([lease('a', { state: 'destroyed' })]);
    await h.guard.request();
    expect(electron.boxes).toEqual([]);
    expect(h.order).toEqual(['beforeClose', 'core.close', 'app.quit']);
  });

  it('asks "N leases still billing ($X/h)"; Cancel stays and can ask again', async () => {
    const h = harness([lease('a'), lease('b')]);
    electron.answers.push(2);
    await h.guard.request();
    expect(electron.boxes[0]).toMatchObject({
      message: '2 leases still billing ($0.74/h)',
      buttons: ['Keep them running', 'Tear down all', 'Cancel'],
    });
    expect(h.order).toEqual([]);
    electron.answers.push(2);
    await h.guard.request();
    expect(electron.boxes).toHaveLength(2);
  });

  it('Keep them running quits without touching the leases', async () => {
    const h = harness([lease('a')]);
    electron.answers.push(0);
    await h.guard.request();
    expect(h.core.destroyAll).not.toHaveBeenCalled();
    expect(h.order).toEqual(['beforeClose', 'core.close', 'app.quit']);
  });

  it('Tear down all destroys, shows progress, then quits', async () => {
    const h = harness([lease('a'), lease('b')]);
    electron.answers.push(1);
    await h.guard.request();
    expect(h.core.destroyAll).toHaveBeenCalledTimes(1);
    expect(h.win.progress).toEqual([2, 0.5, 1, -1]);
    expect(h.win.title).toBe('Tender');
    expect(h.order).toEqual(['beforeClose', 'core.close', 'app.quit']);
  });

  it('a tear-down that leaves a lease unconfirmed says so and does not quit', async () => {
    const h = harness([lease('a'), lease('b')], { fails: ['b'] });
    electron.answers.push(1, 0); // tear down, then "Back to Tender"
    await h.guard.request();
    expect(electron.boxes[1]).toMatchObject({
      message: '1 of 2 leases could not be confirmed destroyed',
      buttons: ['Back to Tender', 'Quit anyway'],
    });
    expect(h.order).toEqual([]);
    expect(h.core.close).not.toHaveBeenCalled();

    electron.answers.push(0); // the one left still bills: asked again, kept
    await h.guard.request();
    expect(electron.boxes[2]!.message).toBe('1 lease still billing ($0.37/h)');
    expect(h.order).toEqual(['beforeClose', 'core.close', 'app.quit']);
  });

  it('a quit while tearing down asks to wait; Quit now leaves at once', async () => {
    const h = harness([lease('a')], { hold: true });
    electron.answers.push(1);
    const first = h.guard.request();
    await settle();
    expect(h.win.title).toMatch(/tearing down: 0 of 1 lease/);
    electron.answers.push(1); // "Quit now"
    await h.guard.request();
    expect(electron.boxes.at(-1)).toMatchObject({
      message: 'Tender is still tearing down',
      buttons: ['Wait', 'Quit now'],
    });
    expect(h.order).toEqual(['beforeClose', 'core.close', 'app.quit']);
    h.finishTeardown();
    await first;
    expect(h.order).toEqual(['beforeClose', 'core.close', 'app.quit']); // nothing twice
  });

  it('holds every way out until the core is closed, then lets them through', async () => {
    const h = harness([]);
    const prevented = { preventDefault: vi.fn() };
    h.guard.install();
    electron.app.emit('before-quit', prevented);
    expect(prevented.preventDefault).toHaveBeenCalled();
    await settle();
    expect(h.order).toEqual(['beforeClose', 'core.close', 'app.quit']);
    const later = { preventDefault: vi.fn() };
    h.guard.intercept(later); // the window's close during the real quit
    electron.app.emit('before-quit', later);
    expect(later.preventDefault).not.toHaveBeenCalled();
  });

  it('still quits when closing the core fails', async () => {
    const h = harness([]);
    h.core.close.mockRejectedValueOnce(new Error('disk gone'));
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await h.guard.request();
    expect(vi.mocked(electron.app.quit)).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });
});

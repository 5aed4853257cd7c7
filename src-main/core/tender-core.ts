import type { TenderClient } from '../api/in-process';
import type { EventBus } from '../base/event-bus';
import { TenderError } from '../base/tender-error';
import type { RunView } from '../contract';
import type { Handlers } from '../contract';
import type { Datastream } from '../datastream/datastream';
import type { RunOutcome } from '../jobs/run/run-driver';
import { Ledger } from '../ledger/ledger';
import type { ProviderRegistry } from '../providers/registry';
import type { ForwardService } from '../services/forwards/forward-service';
import type { Reconciler } from '../services/reconcile/reconciler';
import type { Timing } from '../services/settings/timing';
import { compose, type Composition } from './compose';
import type { CoreOptions } from './core-options';

export type { ProviderDeps } from './default-providers';
export { defaultProviders } from './default-providers';
export type { CoreHooks, CoreOptions } from './core-options';

/** Tender for one data folder: the contract's client and handlers over the composed
 *  services. One writer per data folder; a second process gets a read-only core (status
 *  and logs) or a clear "already running". */
export class TenderCore {
  readonly bus: EventBus;
  readonly datastream: Datastream;
  readonly providers: ProviderRegistry;
  readonly handlers: Handlers;
  readonly client: TenderClient;
  /** The writer's reconciler is started by `open` (unless `reconcile: false`); a reader's
   *  only looks when asked. */
  readonly reconciler: Reconciler;
  /** This process's port forwards: `openDeclared` when a job's run phase starts,
   *  `closeNode` at its teardown (docs/forwards.md). */
  readonly forwards: ForwardService;
  private readonly parts: Composition;

  private constructor(
    readonly home: string,
    readonly ledger: Ledger,
    readonly isWriter: boolean,
    opts: CoreOptions,
  ) {
    this.parts = compose(home, ledger, isWriter, opts);
    ({
      bus: this.bus,
      datastream: this.datastream,
      providers: this.providers,
      handlers: this.handlers,
      client: this.client,
      reconciler: this.reconciler,
      forwards: this.forwards,
    } = this.parts);
  }

  static open(opts: CoreOptions): TenderCore {
    const core = new TenderCore(opts.home, Ledger.openWriter(opts.home), true, opts);
    core.parts.runs.markDriverless();
    if (opts.reconcile !== false) core.reconciler.start();
    return core;
  }

  /** Read-only alongside a writer; null when there is no ledger yet. */
  static openReadonly(opts: CoreOptions): TenderCore | null {
    const ledger = Ledger.openReader(opts.home);
    return ledger && new TenderCore(opts.home, ledger, false, opts);
  }

  /** Opens as writer, or read-only when another process is the writer. */
  static openAny(opts: CoreOptions): TenderCore | null {
    try {
      return TenderCore.open(opts);
    } catch (err) {
      if (err instanceof TenderError && err.code === 'busy') return TenderCore.openReadonly(opts);
      throw err;
    }
  }

  /** The timing in force (built-in, then Settings, then the caller's). */
  get timing(): Timing {
    return this.parts.timing.current();
  }

  /** Resolves when a run driven by this process has ended (teardown included). */
  waitRun(runId: string): Promise<RunOutcome> {
    return this.parts.runs.wait(runId);
  }

  /** Resolves once the job runs (or has ended) on every node of a run driven here. */
  waitJobsStarted(runId: string): Promise<void> {
    return this.parts.runs.waitJobsStarted(runId);
  }

  /** Scrubs job secrets and provider keys from text bound outside (services/notify/). */
  secretRedactor(): (text: string) => string {
    return this.parts.redactor();
  }

  runView(runId: string): RunView {
    return this.parts.runs.view(runId);
  }

  /** Stops driving every run (they keep going on their nodes) and closes the ledger. */
  close(): Promise<void> {
    return this.parts.close();
  }
}

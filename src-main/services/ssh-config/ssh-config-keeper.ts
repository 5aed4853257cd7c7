import { writeSshConfig, type SshConfigLedger } from './ssh-config-store';

/** Many lease changes come in a burst (a run's nodes stepping together): one rewrite after
 *  the burst, soon enough that a new node's alias works by the time its run page shows it. */
export const SSH_CONFIG_DEBOUNCE_MS = 150;

export interface SshConfigKeeperDeps {
  home: string;
  ledger: SshConfigLedger & { onLeaseChange(listener: (label: string) => void): () => void };
  /** The writer's ledger changes; a reader only rebuilds at its look (open and close). */
  isWriter: boolean;
  debounceMs?: number;
  onError?: (err: unknown) => void;
}

/** Keeps `<home>/ssh/config` true to the ledger: rebuilt when a core opens (so it survives
 *  a restart or a `kill -9`: the next look rewrites it), after every burst of lease changes
 *  (an endpoint learnt or changed, a pin, a lease confirmed destroyed) and when the core
 *  closes. The one seam between the ledger and the user's own ssh. */
export class SshConfigKeeper {
  private timer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private hasWarned = false;

  constructor(private readonly d: SshConfigKeeperDeps) {}

  start(): void {
    this.rebuild();
    if (this.d.isWriter) this.unwatch = this.d.ledger.onLeaseChange(() => this.schedule());
  }

  /** Rewrites now (and cancels a pending rewrite). */
  rebuild(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      writeSshConfig(this.d.home, this.d.ledger);
    } catch (err) {
      // The user's ssh entries are a convenience: never let them fail a run.
      if (this.hasWarned) return;
      this.hasWarned = true;
      (this.d.onError ?? defaultWarn)(err);
    }
  }

  /** Stops watching and writes what the ledger says last; call before the ledger closes. */
  close(): void {
    this.unwatch?.();
    this.unwatch = null;
    this.rebuild();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.rebuild(), this.d.debounceMs ?? SSH_CONFIG_DEBOUNCE_MS);
    this.timer.unref();
  }
}

function defaultWarn(err: unknown): void {
  console.warn(`tender: could not write the ssh config entries: ${(err as Error).message}`);
}

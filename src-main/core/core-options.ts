import type { Notice } from '../contract';
import type { Provider } from '../providers/provider';
import type { SecretStore } from '../services/settings/secret-store';
import type { Timing } from '../services/settings/timing';
import type { ProviderDeps } from './default-providers';
import type { EarlyDials } from '../nodes/early-dials';

export interface CoreOptions {
  home: string;
  now?: () => number;
  providers?: (deps: ProviderDeps) => Provider[];
  timing?: Partial<Timing>;
  env?: NodeJS.ProcessEnv;
  /** Reconcile with the providers at start and periodically (writer only; default on). */
  reconcile?: boolean;
  /** Provider keys: the OS keychain in the app; a 0600 file otherwise. */
  secrets?: SecretStore;
  /** What only a desktop shell can do (native folder picker, open a folder). */
  hooks?: CoreHooks;
  /** Connections to a run's hosts dialed before the core opened, for its pool to lend. */
  earlyDials?: EarlyDials;
}

export interface CoreHooks {
  pickFolder?: () => Promise<string | null>;
  openPath?: (path: string) => Promise<void>;
  /** A desktop notification (services/notify/), shown only when nobody looks at the
   *  window; says whether it was shown. */
  notify?: (notice: Notice) => boolean;
}

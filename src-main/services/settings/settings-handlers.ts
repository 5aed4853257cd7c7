import type { Handlers, SettingsView } from '../../contract';
import { ensureTenderKey } from '../../transport/keys';
import { secretOrEnv, type SecretName, type SecretStore } from './secret-store';
import { readDefaults, readNotify, writeDefaults, writeNotify } from './settings-store';

export interface SettingsDeps {
  home: string;
  secrets: SecretStore;
  env: NodeJS.ProcessEnv;
  /** Whether this is the desktop app (it has a folder picker) or web mode. */
  isApp: boolean;
  requireWriter: () => void;
  /** Settings changed: later runs use the new defaults. */
  applyDefaults: () => void;
}

type SettingsHandlers = Pick<
  Handlers,
  'settings.get' | 'settings.setSecret' | 'settings.setDefaults' | 'settings.setNotify'
>;

/** Provider keys, defaults, notifications, and Tender's own SSH key. */
export function settingsHandlers(core: SettingsDeps): SettingsHandlers {
  return {
    'settings.get': async () => settingsView(core),
    'settings.setSecret': async ({ name, value }) => {
      core.secrets.set(name, value);
      return settingsView(core);
    },
    'settings.setDefaults': async (patch) => {
      core.requireWriter();
      writeDefaults(core.home, { ...readDefaults(core.home), ...patch });
      core.applyDefaults();
      return settingsView(core);
    },
    // The writer sends the notifications, so only the writer changes where they go.
    'settings.setNotify': async (patch) => {
      core.requireWriter();
      writeNotify(core.home, { ...readNotify(core.home), ...patch });
      return settingsView(core);
    },
  };
}

function settingsView(core: SettingsDeps): SettingsView {
  const state = (name: SecretName) => {
    const s = secretOrEnv(core.secrets, name, core.env);
    return { isSet: s.value !== null, source: s.source };
  };
  return {
    dataFolder: core.home,
    secrets: {
      vastaiApiKey: state('vastaiApiKey'),
      runpodApiKey: state('runpodApiKey'),
      lambdaApiKey: state('lambdaApiKey'),
    },
    sshPublicKey: ensureTenderKey(core.home).publicKey,
    defaults: readDefaults(core.home),
    shell: core.isApp ? 'app' : 'web',
    notify: readNotify(core.home),
  };
}

// Settings as the UI and the CLI see them: where provider keys come from (never a key), the
// lease defaults, notifications.
import { z } from 'zod';
import { AfterJob } from './policy';

/** Whether a provider key is set, and where it comes from (never the key). */
const SecretState = z.object({
  isSet: z.boolean(),
  source: z.enum(['keychain', 'file', 'env']).nullable(),
});

export const SettingsView = z.object({
  dataFolder: z.string(),
  /** Where each provider key comes from; never the key itself. */
  secrets: z.object({
    vastaiApiKey: SecretState,
    runpodApiKey: SecretState,
    lambdaApiKey: SecretState,
  }),
  /** Tender's own SSH public key: what hosts of the ssh provider must authorize. */
  sshPublicKey: z.string(),
  defaults: z.object({
    connectDeadlineMin: z.number(),
    endpointDeadlineMin: z.number(),
    maxBootAttempts: z.number(),
    cancelGraceSec: z.number(),
    diskGb: z.number(),
    maxDurationH: z.number(),
    idleTimeoutMin: z.number(),
    unreachableGraceMin: z.number(),
    collectGraceMin: z.number(),
    afterJob: AfterJob,
  }),
  /** Which shell serves this UI: the desktop app (native pickers) or web mode. */
  shell: z.enum(['app', 'web']),
  /** Being told when a run ends while nobody is looking (docs/architecture.md, Notifications). */
  notify: z.object({
    /** A desktop notification (the app's; the browser's in web mode, once allowed). */
    notifyDesktop: z.boolean(),
    /** Where the ledger's writer POSTs a Slack-compatible JSON body; null: none. */
    webhookUrl: z.string().nullable(),
  }),
});
export type SettingsView = z.infer<typeof SettingsView>;

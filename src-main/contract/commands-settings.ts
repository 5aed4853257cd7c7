// The commands that configure this install: provider keys, lease defaults, notifications,
// your own hosts and Slurm clusters. Part of the one command table in commands.ts.
import { z } from 'zod';
import { ClusterInput, ClusterView } from './cluster';
import { HostInput, HostView } from './host';
import { webhookUrlProblem } from './notice';
import { AfterJob } from './policy';
import { SettingsView } from './settings-view';

export const settingsCommands = {
  'settings.get': { input: z.object({}).default({}), output: SettingsView },
  /** Stores (or, with null, forgets) a provider key: in the OS keychain in the app, a 0600
   *  file otherwise. The value is write-only: settings.get says only whether it is set. */
  'settings.setSecret': {
    input: z.object({
      name: z.enum(['vastaiApiKey', 'runpodApiKey', 'lambdaApiKey']),
      value: z.string().min(1).max(4_096).nullable(),
    }),
    output: SettingsView,
  },
  'settings.setDefaults': {
    input: z
      .object({
        connectDeadlineMin: z.number().min(1).max(60),
        endpointDeadlineMin: z.number().min(1).max(120),
        maxBootAttempts: z.number().int().min(1).max(10),
        cancelGraceSec: z.number().int().min(0).max(600),
        diskGb: z.number().int().min(8).max(8192),
        maxDurationH: z.number().min(0).max(720),
        idleTimeoutMin: z.number().min(0).max(10_080),
        unreachableGraceMin: z.number().min(1).max(10_080),
        collectGraceMin: z.number().min(1).max(10_080),
        afterJob: AfterJob,
      })
      .partial(),
    output: SettingsView,
  },
  /** Desktop notifications on or off, and the webhook URL (null forgets it). Absent fields
   *  keep their value. */
  'settings.setNotify': {
    input: z
      .object({
        notifyDesktop: z.boolean(),
        webhookUrl: z
          .string()
          .trim()
          .max(2_048)
          .superRefine((u, ctx) => {
            const problem = webhookUrlProblem(u);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          })
          .nullable(),
      })
      .partial()
      .strict(),
    output: SettingsView,
  },
  'hosts.list': { input: z.object({}).default({}), output: z.array(HostView) },
  'hosts.add': { input: HostInput, output: HostView },
  /** Forgets the pinned host key of a host (after the machine was reinstalled). */
  'hosts.forgetKey': {
    input: z.object({ name: z.string() }),
    output: z.object({ forgotten: z.boolean() }),
  },
  /** Slurm clusters (clusters.toml, docs/slurm.md): a run names one with `pool.cluster`. */
  'clusters.list': { input: z.object({}).default({}), output: z.array(ClusterView) },
  'clusters.add': { input: ClusterInput, output: ClusterView },
  'clusters.remove': {
    input: z.object({ name: z.string() }),
    output: z.object({ removed: z.boolean() }),
  },
  'hosts.remove': {
    input: z.object({ name: z.string() }),
    output: z.object({ removed: z.boolean() }),
  },
} as const;

// A Tender "app" in its own process (the entry of test/helpers/app-process.ts): a core with
// the vastai provider pointed at a fake Vast.ai, which runs one job and reports as JSON lines
// on stdout. Tests kill -9 it or SIGSTOP it to play a crashed or sleeping laptop. The fake's
// nodes log in as throw-away users: the parent sends `{instanceId, user}` messages.
import type { CommandInput } from '../../src-main/contract';
import type { Timing } from '../../src-main/services/settings/timing';
import { TenderCore } from '../../src-main/core/tender-core';
import { failedHostsPath } from '../../src-main/providers/vastai/failed-hosts';
import { VastProvider } from '../../src-main/providers/vastai/provider';
import { RunpodProvider } from '../../src-main/providers/runpod/provider';
import { ensureTenderKey } from '../../src-main/transport/keys';

export interface AppChildConfig {
  home: string;
  vastUrl: string;
  apiKey: string;
  agentBundle: string;
  timing: Partial<Timing>;
  run: CommandInput<'run.start'>;
  containerEnvFiles: string[];
  /** Set: the provider is runpod at this fake RunPod (instead of vastai at vastUrl). */
  runpodUrl?: string;
}

const config = JSON.parse(process.argv[2]!) as AppChildConfig;
const users = new Map<string, string>();
process.on('message', (m: { instanceId: string; user: string }) => users.set(m.instanceId, m.user));
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

const core = TenderCore.open({
  home: config.home,
  env: { ...process.env, TENDER_AGENT_BUNDLE: config.agentBundle },
  timing: config.timing,
  providers: (d) => [
    config.runpodUrl
      ? new RunpodProvider({
          apiKey: config.apiKey,
          baseUrl: config.runpodUrl,
          publicKey: () => ensureTenderKey(d.home).publicKey,
          sshUser: (id) => users.get(id) ?? 'root',
          podEnvFiles: config.containerEnvFiles,
          now: d.now,
          http: { retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000 } },
        })
      : new VastProvider({
          apiKey: config.apiKey,
          baseUrl: config.vastUrl,
          publicKey: () => ensureTenderKey(d.home).publicKey,
          failedHostsPath: failedHostsPath(d.home),
          sshUser: (id) => users.get(id) ?? 'root',
          containerEnvFiles: config.containerEnvFiles,
          now: d.now,
          http: { retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000 } },
        }),
  ],
});
core.bus.on('node.changed', (n) =>
  say({ event: 'node', stage: n.stage, jobPhase: n.jobPhase, linkState: n.linkState }),
);
const started = await core.client.invoke('run.start', config.run);
if (!started.ok) {
  say({ event: 'error', error: started.error });
  process.exit(2);
}
say({ event: 'started', runId: started.value.id, pid: process.pid });
await core.waitRun(started.value.id);
const view = await core.client.invoke('run.get', { runId: started.value.id });
say({ event: 'done', run: view.ok ? view.value : null });
await core.close();
process.exit(0);

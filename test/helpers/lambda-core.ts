import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandInput } from '../../src-main/contract';
import type { Timing } from '../../src-main/services/settings/timing';
import { TenderCore } from '../../src-main/core/tender-core';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import { LambdaProvider } from '../../src-main/providers/lambda/provider';
import { ensureTenderKey } from '../../src-main/transport/keys';
import { startFakeLambda, type FakeLambda, type FakeLambdaOptions } from '../fakes/lambda';
import { agentBundlePath } from './agent-bundle';
import { TEST_TIMING } from './vast-core';

/** The fake's seams for a provider: its nodes log in as throw-away users on ports of their
 *  own (real Lambda: ubuntu@ip:22). */
export function fakeSeams(fake: FakeLambda) {
  const find = (id: string) => fake.state.instances().find((i) => i.id === id);
  return {
    sshUser: (id: string) => find(id)?.node.user ?? 'ubuntu',
    sshPort: (id: string) => find(id)?.node.port ?? 22,
  };
}

/** A LambdaProvider against `fake`, with fast retries and launch spacing. */
export function fakeLambdaProvider(
  fake: FakeLambda,
  publicKey: () => string,
  now?: () => number,
): LambdaProvider {
  return new LambdaProvider({
    apiKey: fake.apiKey,
    baseUrl: fake.url,
    publicKey,
    ...fakeSeams(fake),
    ...(now ? { now } : {}),
    http: {
      retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000 },
      requestTimeoutMs: 5_000,
      launchIntervalMs: 20,
    },
  });
}

/** A Tender core on `home` whose lambda provider talks to `fake` (and a local provider). */
export function openLambdaCore(
  fake: FakeLambda,
  home: string,
  opts: { timing?: Partial<Timing>; reconcile?: boolean } = {},
) {
  return TenderCore.open({
    home,
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    timing: { ...TEST_TIMING, ...opts.timing },
    ...(opts.reconcile === false ? { reconcile: false } : {}),
    providers: (d) => [
      fakeLambdaProvider(fake, () => ensureTenderKey(d.home).publicKey, d.now),
      new LocalProvider(d.home, d.now),
    ],
  });
}

/** A fake Lambda Cloud, a data folder with a workspace, and a core on it. */
export async function lambdaSetup(
  opts: { fake?: FakeLambdaOptions; timing?: Partial<Timing> } = {},
) {
  const fake = await startFakeLambda(opts.fake);
  const root = mkdtempSync(join(tmpdir(), 'tender-lambda-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hello from a Lambda VM\n');
  let core = openLambdaCore(fake, home, opts);
  return {
    fake,
    home,
    work,
    get core() {
      return core;
    },
    /** Closes this core and opens another on the same home: the app restarted. */
    async reopen(timing?: Partial<Timing>) {
      await core.close();
      core = openLambdaCore(fake, home, { timing: { ...opts.timing, ...timing } });
      return core;
    },
    async run(input: CommandInput<'run.start'>) {
      const started = await core.client.invoke('run.start', input);
      if (!started.ok) throw new Error(started.error.message);
      await core.waitRun(started.value.id);
      const view = await core.client.invoke('run.get', { runId: started.value.id });
      if (!view.ok) throw new Error(view.error.message);
      return view.value;
    },
    async close() {
      await core.close();
      await fake.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

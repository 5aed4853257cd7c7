import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandInput } from '../../src-main/contract';
import type { Timing } from '../../src-main/services/settings/timing';
import { TenderCore } from '../../src-main/core/tender-core';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import { RunpodProvider } from '../../src-main/providers/runpod/provider';
import { ensureTenderKey } from '../../src-main/transport/keys';
import {
  RUNPOD_ENV_FILE,
  startFakeRunpod,
  type FakeRunpod,
  type GpuTypeSeed,
} from '../fakes/runpod';
import { agentBundlePath } from './agent-bundle';
import type { ImageCatalog } from '../fakes/images/image';
import type { InspectImage } from '../../src-main/providers/images/registry-client';
import { TEST_TIMING } from './vast-core';

/** The RunpodProvider a core on `fake` uses: the fake's throw-away users as SSH users, the
 *  pod env file the fake writes, fast HTTP retries. */
export function runpodProviderFor(
  fake: FakeRunpod,
  home: string,
  opts: {
    now?: () => number;
    httpRetry?: { deadlineMs?: number };
    inspectImage?: InspectImage;
  } = {},
): RunpodProvider {
  return new RunpodProvider({
    apiKey: fake.apiKey,
    baseUrl: fake.url,
    publicKey: () => ensureTenderKey(home).publicKey,
    sshUser: (podId, user) => fake.state.loginFor(podId, user),
    ...(opts.inspectImage ? { inspectImage: opts.inspectImage } : {}),
    podEnvFiles: [`~/${RUNPOD_ENV_FILE}`],
    ...(opts.now ? { now: opts.now } : {}),
    http: {
      retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000, ...opts.httpRetry },
      requestTimeoutMs: 5_000,
    },
  });
}

/** A fake RunPod and a Tender core whose runpod provider talks to it (and a local one). */
export async function runpodSetup(
  opts: {
    gpuTypes?: GpuTypeSeed[];
    bootMs?: number;
    timing?: Partial<Timing>;
    httpRetry?: { deadlineMs?: number };
    /** One clock for the fake and the core (a JumpClock skips a slow pull's minutes). */
    clock?: { now(): number };
    /** What the fake's images are (test/fakes/images). */
    images?: ImageCatalog;
    inspectImage?: InspectImage;
  } = {},
) {
  const fake = await startFakeRunpod({
    ...(opts.gpuTypes ? { gpuTypes: opts.gpuTypes } : {}),
    ...(opts.bootMs !== undefined ? { bootMs: opts.bootMs } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.images ? { images: opts.images } : {}),
  });
  const root = mkdtempSync(join(tmpdir(), 'tender-runpod-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hello from a RunPod pod\n');
  const opened = openRunpodCore(fake, home, opts);
  const core = opened.core;
  return {
    fake,
    core,
    home,
    work,
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

/** A Tender core on `home` whose runpod provider talks to `fake` (and a local provider). */
export function openRunpodCore(
  fake: FakeRunpod,
  home: string,
  opts: {
    timing?: Partial<Timing>;
    httpRetry?: { deadlineMs?: number };
    reconcile?: boolean;
    clock?: { now(): number };
    inspectImage?: InspectImage;
  } = {},
) {
  const core = TenderCore.open({
    home,
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    timing: { ...TEST_TIMING, ...opts.timing },
    ...(opts.reconcile === false ? { reconcile: false } : {}),
    ...(opts.clock ? { now: () => opts.clock!.now() } : {}),
    providers: (d) => [
      runpodProviderFor(fake, d.home, {
        now: d.now,
        ...(opts.httpRetry ? { httpRetry: opts.httpRetry } : {}),
        ...(opts.inspectImage ? { inspectImage: opts.inspectImage } : {}),
      }),
      new LocalProvider(d.home, d.now),
    ],
  });
  return { core };
}

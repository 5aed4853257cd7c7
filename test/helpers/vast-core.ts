import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandInput } from '../../src-main/contract';
import { DEFAULT_TIMING, type Timing } from '../../src-main/services/settings/timing';
import { TenderCore, type CoreOptions } from '../../src-main/core/tender-core';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import { failedHostsPath } from '../../src-main/providers/vastai/failed-hosts';
import { VastProvider } from '../../src-main/providers/vastai/provider';
import { ensureTenderKey } from '../../src-main/transport/keys';
import { startFakeVast, VAST_ENV_FILE, type FakeVast, type OfferSeed } from '../fakes/vast';
import { agentBundlePath } from './agent-bundle';
import type { ImageCatalog } from '../fakes/images/image';
import type { InspectImage } from '../../src-main/providers/images/registry-client';

/** Fast enough for tests, with the same shape as production settings. */
export const TEST_TIMING: Partial<Timing> = {
  deadlines: { ...DEFAULT_TIMING.deadlines, connectMs: 30_000 },
  endpointPollMs: 150,
  endpointDeadlineMs: 20_000,
  destroyPollMs: 150,
  destroyConfirmDeadlineMs: 20_000,
  destroyRetryScale: 0.05,
  teardownMaxAttempts: 8,
  guardEveryMs: 200,
};

/** A fake Vast.ai and a Tender core whose vastai provider talks to it. The fake's nodes log
 *  in as throw-away users (isolated homes), so the provider's ssh user comes from the fake. */
export async function vastSetup(
  opts: {
    offers?: OfferSeed[];
    timing?: Partial<Timing>;
    httpRetry?: { deadlineMs?: number };
    /** One clock for the fake and the core (a JumpClock skips a slow pull's minutes). */
    clock?: { now(): number };
    /** What the fake's images are (test/fakes/images). */
    images?: ImageCatalog;
    inspectImage?: InspectImage;
  } = {},
) {
  const fake: FakeVast = await startFakeVast({
    offers: opts.offers ?? defaultOffers(4),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.images ? { images: opts.images } : {}),
  });
  const root = mkdtempSync(join(tmpdir(), 'tender-vast-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hello from a rented GPU\n');
  const opened = openVastCore(fake, home, opts);
  const core = opened.core;
  const vast = opened.vast;
  return {
    fake,
    core,
    home,
    work,
    vast,
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

/** `n` RTX 4090 offers at rising prices, on different machines. */
export function defaultOffers(n: number): OfferSeed[] {
  return Array.from(
    { length: n },
    (_, i) => ({ gpu_name: 'RTX 4090', dph_base: 0.3 + i * 0.05 }) as OfferSeed,
  );
}

/** A Tender core on `home` whose vastai provider talks to `fake` (and a local provider):
 *  what an app process on that data folder would open. */
export function openVastCore(fake: FakeVast, home: string, opts: VastCoreOpts = {}) {
  let vast!: VastProvider;
  const core = TenderCore.open(vastCoreOptions(fake, home, opts, (v) => (vast = v)));
  return { core, vast: () => vast };
}

export interface VastCoreOpts {
  timing?: Partial<Timing>;
  httpRetry?: { deadlineMs?: number };
  reconcile?: boolean;
  clock?: { now(): number };
  /** The registry look the provider makes before renting (none by default). */
  inspectImage?: InspectImage;
}

/** The options of such a core (also what an in-process `tender` command opens). */
export function vastCoreOptions(
  fake: FakeVast,
  home: string,
  opts: VastCoreOpts = {},
  made?: (vast: VastProvider) => void,
): CoreOptions {
  const userOf = (instanceId: string, user: string) => fake.state.loginFor(instanceId, user);
  return {
    home,
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    timing: { ...TEST_TIMING, ...opts.timing },
    ...(opts.reconcile === false ? { reconcile: false } : {}),
    ...(opts.clock ? { now: () => opts.clock!.now() } : {}),
    providers: (d) => {
      const vast = new VastProvider({
        apiKey: fake.apiKey,
        baseUrl: fake.url,
        publicKey: () => ensureTenderKey(d.home).publicKey,
        failedHostsPath: failedHostsPath(d.home),
        sshUser: userOf,
        ...(opts.inspectImage ? { inspectImage: opts.inspectImage } : {}),
        containerEnvFiles: [`~/${VAST_ENV_FILE}`],
        now: d.now,
        http: {
          retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000, ...opts.httpRetry },
          requestTimeoutMs: 5_000,
        },
      });
      made?.(vast);
      return [vast, new LocalProvider(d.home, d.now)];
    },
  };
}

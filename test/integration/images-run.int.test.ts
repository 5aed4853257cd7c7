// Any reasonable image runs a node: one whose default user is not root, one without sshd
// (and without Node, Python or curl), each running the numbered-lines job end to end on the
// RunPod fake and the Vast fake (real sshd nodes, the built agent, a fake registry that
// describes the images). An image that cannot work is refused before anything is rented.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registryInspector } from '../../src-main/providers/images/registry-client';
import { startFakeRegistry, type FakeRegistry } from '../fakes/images/registry';
import type { FakeImage } from '../fakes/images/image';
import { runpodSetup } from '../helpers/runpod-core';
import { vastSetup } from '../helpers/vast-core';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const IMAGES: Record<string, FakeImage> = {
  // USER researcher, sshd installed, no sudo (a hardened research image).
  'lab/nonroot:1': { user: 'researcher', sshd: true, layers: [700_000_000, 2_500_000_000] },
  // A bare distro: no sshd, no Node, no Python, no curl; runs as root with apt-get.
  'lab/bare:1': { sshd: false, minimal: true },
  // A private image whose user is not root: its registry describes it only to its login.
  'lab/private:1': {
    user: 'researcher',
    login: { username: 'lab-bot', password: 'ghp_Q7wLx2Vn9Rt4Kz8M' },
  },
  // Built for arm64 only (a GH200 image).
  'lab/gh200:1': { platforms: [{ os: 'linux', architecture: 'arm64' }] },
};

async function registry(): Promise<FakeRegistry> {
  const reg = await startFakeRegistry(IMAGES);
  cleanups.push(() => reg.stop());
  return reg;
}

const LINES = 'alpha\nbeta\ngamma\n';
/** Numbers the lines of lines.txt with nothing but the shell; says what the image lacks. */
const numberedJob = (work: string) => ({
  name: 'numbered-lines',
  run:
    'mkdir -p out; i=0; while IFS= read -r l; do i=$((i+1)); echo "$i $l"; done < lines.txt > out/numbered.txt; ' +
    'cat out/numbered.txt; for t in python3 curl; do command -v $t >/dev/null || echo "no $t here"; done',
  outputs: ['out/numbered.txt'],
  workspace: { workdir: work, exclude: [] },
});

function expectNumbered(home: string, runId: string): void {
  expect(
    readFileSync(join(home, 'runs', runId, 'node-0', 'outputs', 'out', 'numbered.txt'), 'utf8'),
  ).toBe('1 alpha\n2 beta\n3 gamma\n');
}

describe('RunPod: any reasonable image', () => {
  async function setup() {
    const reg = await registry();
    const t = await runpodSetup({ images: reg.catalog, inspectImage: registryInspector() });
    cleanups.push(() => t.close());
    writeFileSync(join(t.work, 'lines.txt'), LINES);
    return { ...t, reg };
  }

  it('an image whose user is not root: SSH logs in as that user, the job runs', async () => {
    const { core, fake, work, run, home, reg } = await setup();
    const view = await run({
      job: numberedJob(work),
      pool: { provider: 'runpod', count: 1, image: reg.ref('lab/nonroot:1') },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expectNumbered(home, view.id);
    const [pod] = fake.state.pods();
    expect(pod!.env.TENDER_SSH_USER).toBe('researcher');
    expect(pod!.dockerArgs).toMatch(/^sh -c '/);
    expect(fake.state.livePods()).toEqual([]);
    const log = await core.client.invoke('logs.read', { runId: view.id, channel: 'bootstrap' });
    const lines = log.ok ? log.value.records.map((r) => r.line).join('\n') : '';
    expect(lines).toContain(`image ${reg.ref('lab/nonroot:1')}: 3.2 GB compressed`);
    expect(lines).toContain('runs as researcher');
  });

  it('an image without sshd, Node, Python or curl: the start command installs sshd', async () => {
    const { core, fake, work, run, home, reg } = await setup();
    const view = await run({
      job: numberedJob(work),
      pool: { provider: 'runpod', count: 1, image: reg.ref('lab/bare:1') },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expectNumbered(home, view.id);
    const agent = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    const out = agent.ok ? agent.value.records.map((r) => r.line) : [];
    expect(out).toEqual(expect.arrayContaining(['no python3 here', 'no curl here']));
    expect(fake.state.pods()[0]!.env.TENDER_SSH_USER).toBe('root');
    expect(fake.state.livePods()).toEqual([]);
  });

  it('a private image whose user is not root: the registry is asked with the pool’s login', async () => {
    const { core, fake, work, run, home, reg } = await setup();
    const image = reg.ref('lab/private:1');
    const password = 'ghp_Q7wLx2Vn9Rt4Kz8M';
    fake.registries.addPrivate(image, 'lab-bot', password);
    const view = await run({
      job: numberedJob(work),
      pool: {
        provider: 'runpod',
        count: 1,
        image,
        image_login: { username: 'lab-bot', password_env: 'LAB_TOKEN' },
      },
      secrets: { LAB_TOKEN: password },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expectNumbered(home, view.id);
    expect(fake.state.pods()[0]!.env.TENDER_SSH_USER).toBe('researcher');
    const log = await core.client.invoke('logs.read', { runId: view.id, channel: 'bootstrap' });
    const lines = log.ok ? log.value.records.map((r) => r.line).join('\n') : '';
    expect(lines).toContain(`image ${image}: 1 MB compressed (${reg.host}), runs as researcher`);
    expect(lines).not.toContain(password);
  });

  it('an arm64-only image is refused before a pod is rented, naming why', async () => {
    const { core, fake, work, reg } = await setup();
    const started = await core.client.invoke('run.start', {
      job: numberedJob(work),
      pool: { provider: 'runpod', count: 1, image: reg.ref('lab/gh200:1') },
    });
    expect(started.ok).toBe(false);
    expect(!started.ok && started.error.message).toMatch(
      /built for arm64 only; the hosts are amd64/,
    );
    expect(fake.state.pods()).toEqual([]);
  });

  it('an image with no shell is refused before a pod is rented', async () => {
    const { core, fake, work } = await setup();
    const started = await core.client.invoke('run.start', {
      job: numberedJob(work),
      pool: { provider: 'runpod', count: 1, image: 'gcr.io/distroless/python3-debian12' },
    });
    expect(!started.ok && started.error.message).toMatch(/has no shell/);
    expect(fake.state.pods()).toEqual([]);
  });
});

describe('Vast.ai: any reasonable image', () => {
  async function setup(offers?: NonNullable<Parameters<typeof vastSetup>[0]>['offers']) {
    const reg = await registry();
    const t = await vastSetup({
      images: reg.catalog,
      inspectImage: registryInspector(),
      ...(offers ? { offers } : {}),
    });
    cleanups.push(() => t.close());
    writeFileSync(join(t.work, 'lines.txt'), LINES);
    return { ...t, reg };
  }

  it('an image whose user is not root runs as root (docker create --user), the job runs', async () => {
    const { fake, work, run, home, reg } = await setup();
    const view = await run({
      job: numberedJob(work),
      pool: { provider: 'vastai', count: 1, image: reg.ref('lab/nonroot:1') },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expectNumbered(home, view.id);
    const creates = fake.state.calls().filter((c) => c.method === 'PUT' && /asks/.test(c.path));
    expect(creates.map((c) => (c.body as { user?: string }).user)).toEqual(['root']);
    expect(fake.state.liveInstances()).toEqual([]);
  });

  it('an image without sshd, Node, Python or curl: the ssh launch mode brings sshd', async () => {
    const { core, fake, work, run, home, reg } = await setup();
    const view = await run({
      job: numberedJob(work),
      pool: { provider: 'vastai', count: 1, image: reg.ref('lab/bare:1') },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expectNumbered(home, view.id);
    const agent = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    const out = agent.ok ? agent.value.records.map((r) => r.line) : [];
    expect(out).toEqual(expect.arrayContaining(['no python3 here', 'no curl here']));
    expect(fake.state.liveInstances()).toEqual([]);
  });

  it('an arm64-only image goes to the arm64 host among the offers, not the cheaper amd64 one', async () => {
    const { fake, work, run, home, reg } = await setup([
      { gpu_name: 'RTX 4090', dph_base: 0.3 },
      { gpu_name: 'GH200', dph_base: 1.5, cpu_arch: 'arm64' },
    ]);
    const view = await run({
      job: numberedJob(work),
      pool: { provider: 'vastai', count: 1, image: reg.ref('lab/gh200:1') },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expectNumbered(home, view.id);
    const [inst] = fake.state.instances();
    expect((inst!.view as { cpu_arch: string }).cpu_arch).toBe('arm64');
  });

  it('an arm64-only image where every host is amd64 is refused before anything is rented', async () => {
    const { fake, work, run, reg } = await setup();
    const view = await run({
      job: numberedJob(work),
      pool: { provider: 'vastai', count: 1, image: reg.ref('lab/gh200:1') },
    });
    expect(view.status).toBe('failed');
    expect(view.failedReason).toMatch(/built for arm64 only; the hosts are amd64/);
    expect(fake.state.instances()).toEqual([]);
  });
});

// A job's declared `ports` (local provider, real agent): its forwards open once its run
// starts, a service the job serves on the node is fetched through the local port, and they
// close with the job.
import { describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { freePort } from '../helpers/free-port';
import { fetchText } from '../helpers/http-get';
import { runView, useLocalHomes } from '../helpers/local-cores';
import { eventuallyAsync } from '../helpers/wait';

const localHome = useLocalHomes('tender-jobfwd-');

async function forwards(core: TenderCore, runId: string) {
  const r = await core.client.invoke('forward.list', { runId });
  return r.ok ? r.value : [];
}

describe("a job's declared ports", () => {
  it('open when its run starts, reach the service on the node, close with the job', async () => {
    const { open, work } = localHome();
    const core = open();
    const port = await freePort();
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'tb',
        run: `python3 -m http.server ${port} --bind 127.0.0.1`,
        ports: [port],
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'local', count: 1, verify: [] },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await eventuallyAsync(async () => (await forwards(core, runId)).length === 1);
    const [f] = await forwards(core, runId);
    // A local node is this machine: the node's port is taken here, so a free one is used.
    expect(f).toMatchObject({
      direction: 'local',
      remotePort: port,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(f!.localPort).not.toBe(port);
    let body: string | null = null;
    await eventuallyAsync(async () => (body = await fetchText(`${f!.url}/hello.txt`)) !== null);
    expect(body).toBe('hi\n');

    await core.client.invoke('run.cancel', { runId });
    await core.waitRun(runId);
    expect((await runView(core, runId)).status).toBe('cancelled');
    expect(await forwards(core, runId)).toEqual([]);
    expect(await fetchText(`${f!.url}/hello.txt`)).toBeNull();
  });
});

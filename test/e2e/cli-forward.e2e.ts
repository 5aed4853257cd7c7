// `tender forward` through the CLI against a detached local run: a node port reached on
// this machine's 127.0.0.1, the forward kept until Ctrl-C; bad input — a port out of
// range, a local port in use, an unknown run — exits 2 naming the fix.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CliProcess, runCli, useTempHomes } from '../helpers/cli';
import { freePort } from '../helpers/free-port';
import { fetchText } from '../helpers/http-get';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

describe('tender forward', () => {
  it('forwards a node port until Ctrl-C; bad ports and a busy local port exit 2', async () => {
    const { home, root } = newHome();
    const port = await freePort();
    const job = writeJob(
      root,
      'serve',
      `[job]\nname = "serve"\nrun = "python3 -m http.server ${port} --bind 127.0.0.1"\n`,
      { 'page.txt': 'served\n' },
    );
    const ran = await runCli(['run', job, '--detach'], { home });
    expect(ran.code, ran.stderr).toBe(0);
    const runId = /run (r-[a-z0-9]+)/.exec(ran.stderr)![1]!;
    try {
      const local = await freePort();
      const fwd = new CliProcess(['forward', runId, `${port}:${local}`], { home });
      await fwd.waitFor(
        'stdout',
        new RegExp(`forwarding http://127\\.0\\.0\\.1:${local} → node-0:${port}`),
      );
      let body: string | null = null;
      for (let i = 0; i < 200 && body === null; i++) {
        body = await fetchText(`http://127.0.0.1:${local}/page.txt`);
        if (body === null) await new Promise((r) => setTimeout(r, 50));
      }
      expect(body).toBe('served\n');
      fwd.child.kill('SIGINT');
      expect((await fwd.exited).code).toBe(0);
      expect(await fetchText(`http://127.0.0.1:${local}/page.txt`)).toBeNull();

      const range = await runCli(['forward', runId, '70000'], { home });
      expect(range.code).toBe(2);
      expect(range.stderr).toMatch(/1 to 65535/);
      const busy = await freePort();
      const taken = createServer();
      await new Promise<void>((r) => taken.listen(busy, '127.0.0.1', r));
      try {
        const r = await runCli(['forward', runId, `${port}:${busy}`], { home });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(
          `local port ${busy} is in use: pick another (${port}:${busy + 1})`,
        );
      } finally {
        await new Promise((r) => taken.close(r));
      }
      const unknown = await runCli(['forward', 'r-nope', '6006'], { home });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/no run r-nope/);
    } finally {
      await runCli(['down', '--all'], { home });
    }
  });
});

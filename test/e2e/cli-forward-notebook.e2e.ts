// A Jupyter notebook server (Debian's python3-notebook, the real one) started as a detached
// run on a host over real sshd, then `tender forward <run> PORT:LOCAL`: no Tender process
// follows the run, so its local datastream holds nothing the job printed; the forward reads
// the token from the node's agent log over the link, prints the login URL, and Jupyter's own
// API answers through the forward with that token (and refuses without it).
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CliProcess, runCli, useTempHomes } from '../helpers/cli';
import { freePort } from '../helpers/free-port';
import { writeJob } from '../helpers/job-files';
import { useLabHosts } from '../helpers/lab-host';

const newHome = useTempHomes();
const labHost = useLabHosts(newHome);

/** A GET's status and body; status 0 when nothing answered. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', () => resolve({ status: 0, body: '' }))
      .end();
  });
}

describe('tender forward to a notebook in a detached run', () => {
  it('prints the token the node printed, and Jupyter answers through the forward', async () => {
    const installed = spawnSync('/usr/bin/python3', ['-m', 'notebook', '--version']);
    expect(installed.status, 'apt-get install python3-notebook (.ci/run does)').toBe(0);
    const { home, root } = await labHost();
    const port = await freePort();
    const job = writeJob(
      root,
      'nb',
      `[job]\nname = "notebook"\nrun = "/usr/bin/python3 -m notebook --no-browser --ip 127.0.0.1 --port ${port}"\n`,
    );
    const ran = await runCli(['run', job, '--hosts', 'lab', '--detach'], { home });
    expect(ran.code, ran.stderr).toBe(0);
    const runId = /run (r-[a-z0-9]+)/.exec(ran.stderr)![1]!;
    try {
      const local = await freePort();
      const fwd = new CliProcess(['forward', runId, `${port}:${local}`], { home });
      await fwd.waitFor('stdout', new RegExp(`forwarding http://127\\.0\\.0\\.1:${local} `));
      await fwd.waitFor('stdout', /token [0-9a-f]{16,}: /, 60_000);
      const m = new RegExp(
        `token ([0-9a-f]{16,}): http://127\\.0\\.0\\.1:${local}/\\?token=([0-9a-f]+)`,
      ).exec(fwd.stdout);
      expect(m, fwd.stdout).not.toBeNull();
      expect(m![2]).toBe(m![1]);
      const token = m![1]!;

      const status = await get(`http://127.0.0.1:${local}/api/status?token=${token}`);
      expect(status.status, status.body).toBe(200);
      expect(JSON.parse(status.body)).toHaveProperty('started');
      // The token is what lets one in: without it Jupyter refuses.
      expect((await get(`http://127.0.0.1:${local}/api/status`)).status).toBe(403);
      fwd.child.kill('SIGINT');
      expect((await fwd.exited).code).toBe(0);
    } finally {
      await runCli(['down', '--all'], { home });
    }
  });
});

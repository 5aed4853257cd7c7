// `tender node setup` on a node kept after its job (your own host over real sshd), and
// run_setup before every run, driven through the built CLI as a user would.
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { useLabHosts } from '../helpers/lab-host';

const newHome = useTempHomes();
const labHost = useLabHosts(newHome);

function lastJson<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

interface RunOut {
  runId: string;
  status: string;
  nodes: { stage: string; leaseId: string | null; cacheBytes?: number | null }[];
}

describe('tender node setup', () => {
  it('appends to a kept node: waits, prints the section, exits with the entry’s outcome; refuses unknown and destroyed targets with the fix', async () => {
    const { home, root } = await labHost();
    const job = writeJob(
      root,
      'ws',
      `[job]
name = "kept"
host_setup = ["echo declared entry"]
run = "head -c 2048 /dev/zero > $TENDER_CACHE/weights.bin && echo ran"
`,
    );
    const run = await runCli(['run', job, '--hosts', 'lab', '--keep', '--json'], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('declared entry'); // host setup output is the job's own
    const out = lastJson<RunOut>(run.stdout);
    expect(out.nodes[0]).toMatchObject({ stage: 'dormant' });
    const lease = out.nodes[0]!.leaseId!;

    const ok = await runCli(['node', 'setup', lease, 'echo installed ffmpeg', '--name', 'ffmpeg'], {
      home,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('installed ffmpeg\n');
    expect(ok.stderr).toContain('» host_setup[2] (ffmpeg) echo installed ffmpeg');
    expect(ok.stderr).toContain(`host_setup[2] on ${lease} exited 0`);

    const bad = await runCli(['node', 'setup', lease, 'echo no such package >&2; exit 100'], {
      home,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('no such package');
    expect(bad.stderr).toMatch(/host_setup\[3\] on .* exited with code 100; the node stays up/);

    const queued = await runCli(['node', 'setup', lease, 'sleep 0.2', '--no-wait', '--json'], {
      home,
    });
    expect(queued.code, queued.stderr).toBe(0);
    expect(lastJson<{ id: number; position: number }>(queued.stdout)).toMatchObject({ id: 4 });
    expect(queued.stderr).toMatch(/appended host_setup\[4\] to /);

    // The cache the run filled is on the node's row.
    const status = await runCli(['status', '--json'], { home });
    const node = lastJson<{ runs: RunOut[] }>(status.stdout).runs[0]!.nodes[0]!;
    expect(node.cacheBytes).toBeGreaterThanOrEqual(2048);
    expect((await runCli(['status'], { home })).stdout).toMatch(/CACHE[\s\S]*2\.\d kB/);

    const unknown = await runCli(['node', 'setup', 'ssh:nowhere', 'true'], { home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no lease or node ssh:nowhere/);
    expect(unknown.stderr).toMatch(/hint: `tender status` lists/);

    expect((await runCli(['down', '--all'], { home })).code).toBe(0);
    const gone = await runCli(['node', 'setup', lease, 'true'], { home });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/is destroyed: its host setup went with it/);
    expect(gone.stderr).toMatch(/hint: keep a node after its job/);
  });

  it('asks for a node and a quoted command', async () => {
    const { home } = newHome();
    const r = await runCli(['node', 'setup', 'only-a-target'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/name the node and the command/);
  });
});

describe('run_setup', () => {
  it('runs before the run’s output on every run, and a failing one fails the run naming it', async () => {
    const { home, root } = newHome();
    const job = writeJob(
      root,
      'ws',
      `[job]
name = "prep"
setup = "echo setting up"
run_setup = "echo run_setup says hello"
run = "echo the run itself"
`,
    );
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['run', job], { home });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n').filter(Boolean);
      // setup once (cached by default: the second run skips it), run_setup on every run.
      const setup = i === 0 ? ['setting up'] : [];
      expect(lines).toEqual([...setup, 'run_setup says hello', 'the run itself']);
    }
    const failing = writeJob(
      root,
      'ws2',
      `[job]
name = "prep-fails"
run_setup = "exit 4"
run = "echo never"
`,
    );
    const r = await runCli(['run', failing], { home });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('never');
    expect(r.stderr).toContain('run_setup failed (exited with code 4): run not started');
    expect(r.stderr).toMatch(/run exited 4/);
  });
});

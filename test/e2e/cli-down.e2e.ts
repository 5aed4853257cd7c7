import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, runCli, useTempHomes } from '../helpers/cli';

const newHomeOf = useTempHomes();
const newHome = () => newHomeOf().home;

interface RunJson {
  runId: string;
  status: string;
  nodes: { stage: string; leaseId: string | null }[];
}

interface StatusJson {
  leases: { runId: string | null; leaseId: string | null; state: string }[];
}

const lastJson = <T>(stdout: string): T => JSON.parse(stdout.trim().split('\n').pop()!) as T;

/** A completed run of the hello example whose node is kept warm (its lease still live). */
async function keptRun(home: string): Promise<RunJson> {
  // --new-node: each run its own lease (a kept node would otherwise serve the next run).
  const r = await runCli(
    ['run', join(EXAMPLES, 'hello', 'tender.toml'), '--keep', '--new-node', '--json'],
    { home },
  );
  expect(r.code, r.stderr).toBe(0);
  return lastJson<RunJson>(r.stdout);
}

async function liveLeases(home: string): Promise<StatusJson['leases']> {
  const s = await runCli(['status', '--json'], { home });
  expect(s.code, s.stderr).toBe(0);
  return lastJson<StatusJson>(s.stdout).leases.filter((l) => l.state === 'created');
}

describe('tender down <runId|leaseId>', () => {
  it('tears down one run and leaves the others; a lease id names one lease', async () => {
    const home = newHome();
    const first = await keptRun(home);
    const second = await keptRun(home);
    const third = await keptRun(home);
    expect(await liveLeases(home)).toHaveLength(3);

    const byRun = await runCli(['down', first.runId, '--json'], { home });
    expect(byRun.code, byRun.stderr).toBe(0);
    const report = lastJson<{ allConfirmed: boolean; outcomes: { leaseId: string }[] }>(
      byRun.stdout,
    );
    expect(report.allConfirmed).toBe(true);
    expect(report.outcomes.map((o) => o.leaseId)).toEqual([first.nodes[0]!.leaseId]);
    expect((await liveLeases(home)).map((l) => l.runId).sort()).toEqual(
      [second.runId, third.runId].sort(),
    );

    const leaseId = second.nodes[0]!.leaseId!;
    const byLease = await runCli(['down', leaseId], { home });
    expect(byLease.code, byLease.stderr).toBe(0);
    expect(byLease.stderr).toMatch(/1 lease\(s\) confirmed destroyed/);
    expect((await liveLeases(home)).map((l) => l.runId)).toEqual([third.runId]);
    expect(readdirSync(join(home, 'local', 'leases'))).toHaveLength(1);

    const again = await runCli(['down', first.runId], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(`nothing to tear down: ${first.runId} holds no live lease`),
    );
    expect(await liveLeases(home)).toHaveLength(1);
  });

  it('names what it cannot find, and refuses a target beside --all', async () => {
    const home = newHome();
    const unknown = await runCli(['down', 'r-nosuchrun'], { home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no run or lease r-nosuchrun/);
    expect(unknown.stderr).toMatch(/tender status/);
    const both = await runCli(['down', 'r-x', '--all'], { home });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not both/);
  });
});

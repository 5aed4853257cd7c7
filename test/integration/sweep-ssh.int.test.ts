// A sweep over machines you already have (ssh provider, two real sshd hosts): the cells
// queue over both, setup runs once per host, each cell's outputs come back to its folder.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { runOnHosts, sshCore, sshJob } from '../helpers/ssh-core';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

describe('a sweep on two ssh hosts', () => {
  it('queues 5 cells over both hosts: setup once on each, outputs per cell', async () => {
    for (let i = 0; i < 2; i++) fixtures.push(await startSshd());
    const t = sshCore(fixtures);
    closers.push(() => t.close());
    writeFileSync(join(t.work, 'hello.txt'), 'hi\n');
    const run = await runOnHosts(
      t.core,
      sshJob(t.work, {
        setup: 'echo setting up',
        run: 'mkdir -p out; echo "k=$TENDER_PARAM_K" | tee out/k.txt; sleep 0.2',
        outputs: ['out/k.txt'],
        sweep: { axes: { K: ['a', 'b', 'c', 'd', 'e'] }, cells: [] },
      }),
      ['h0', 'h1'],
    );
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const cells = await t.core.client.invoke('run.cells', { runId: run.id });
    if (!cells.ok) throw new Error(cells.error.message);
    expect(cells.value.map((c) => c.status)).toEqual(Array(5).fill('completed'));
    expect(new Set(cells.value.map((c) => c.node))).toEqual(new Set(['node-0', 'node-1']));
    for (const c of cells.value)
      expect(readFileSync(join(c.outputsDir, 'out/k.txt'), 'utf8')).toBe(`k=${c.values.K}\n`);
    const logs = await t.core.client.invoke('logs.read', {
      runId: run.id,
      channel: 'agent',
      limit: 100_000,
    });
    if (!logs.ok) throw new Error(logs.error.message);
    expect(logs.value.records.filter((r) => r.source === 'setup').map((r) => r.line)).toEqual([
      'setting up',
      'setting up',
    ]);
    expect(run.nodes.map((n) => n.stage)).toEqual(['destroyed', 'destroyed']);
  });
});

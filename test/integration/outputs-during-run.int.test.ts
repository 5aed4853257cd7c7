// Outputs pulled while the job runs (periodic-pulls.ts), on the local provider with real
// agent processes: every `checkpoint_every_s` the declared outputs land in the run's folder,
// each pull asking only for what changed (pack-outputs --have-stdin); the final collection
// too. A run cut short keeps the last pull.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { runView as view, useLocalHomes } from '../helpers/local-cores';

const setup = useLocalHomes('tender-outputs-run-');

async function events(core: TenderCore, runId: string): Promise<string[]> {
  const out = await core.client.invoke('logs.read', { runId, channel: 'events' });
  return out.ok ? out.value.records.map((r) => r.line) : [];
}

describe('outputs during the run', () => {
  it('land every interval, each pull sending only what changed; a cancelled run keeps the last', async () => {
    const { open, work, root } = setup();
    const core = open();
    const go = join(root, 'go'); // written by the test once the first pull has landed
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'long',
        // A 1 MB file written once, a step counter rewritten between the first two pulls.
        run:
          'mkdir -p out; head -c 1000000 /dev/urandom > out/weights.bin; echo 1 > out/step.txt; ' +
          `until [ -f ${go} ]; do sleep 0.1; done; echo 2 > out/step.txt; sleep 120`,
        outputs: ['out/'],
        checkpoint_every_s: 5,
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    const pulls = () =>
      events(core, runId).then((ls) => ls.filter((l) => l.startsWith('while running, outputs:')));
    const waitPulls = async (n: number) => {
      let lines: string[] = [];
      for (const end = Date.now() + 60_000; lines.length < n && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 200));
        lines = await pulls();
      }
      return lines;
    };
    expect((await waitPulls(1))[0]).toMatch(/while running, outputs: 2 files, 1000002 bytes in /);
    const v = await view(core, runId);
    const landed = join(v.outputsDir, 'node-0', 'outputs');
    expect(readFileSync(join(landed, 'out', 'step.txt'), 'utf8')).toBe('1\n');
    writeFileSync(go, '');
    // The second pull: the weights were not sent again, the new step was.
    const lines = await waitPulls(2);
    expect(lines[1] ?? lines.join('\n')).toMatch(
      /while running, outputs: 2 files, 1000002 bytes .* \(1 unchanged since the last pull, not sent again\)/,
    );
    expect(readFileSync(join(landed, 'out', 'step.txt'), 'utf8')).toBe('2\n');

    const stop = await core.client.invoke('run.cancel', { runId });
    expect(stop.ok).toBe(true);
    await core.waitRun(runId);
    expect(readFileSync(join(landed, 'out', 'weights.bin')).length).toBe(1_000_000);
  });
});

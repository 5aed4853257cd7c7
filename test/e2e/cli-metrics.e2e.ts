// Metrics through the CLI: a local job appends JSON lines to $TENDER_METRICS; `tender run`
// and `tender logs` never print them as output, and `tender metrics` shows them as a table
// per node, as JSON series and as CSV rows. An unknown run is named as `tender receipt`
// names it.
import { describe, expect, it } from 'vitest';
import type { MetricSeries } from '../../src-main/contract';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

const TRAIN = `echo training
for i in 1 2 3; do
  echo "{\\"step\\": $((i*10)), \\"loss\\": 0.$((4-i)), \\"lr\\": 3e-4}" >> "$TENDER_METRICS"
done
echo 'not json' >> "$TENDER_METRICS"
printf '{"epoch": 1, "acc": 0.5}' >> "$TENDER_METRICS"
echo done
`;

describe('tender metrics', () => {
  it("shows a job's metrics as a table, JSON series and CSV; never as its output", async () => {
    const { home, root } = newHome();
    const job = writeJob(
      root,
      'metrics',
      ['[job]', 'name = "metered"', 'run = "sh train.sh"'].join('\n') + '\n',
      { 'train.sh': TRAIN },
    );
    const ran = await runCli(['run', job], { home });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('training\ndone\n');
    expect(ran.stderr).not.toMatch(/"step"|not json/);
    const runId = /run (r-[a-z0-9]+)/.exec(ran.stderr)![1]!;

    const logs = await runCli(['logs', runId], { home });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout + logs.stderr).not.toMatch(/"step"|not json/);
    // The last metrics line (flushed at the exit) is no line of the tail's two.
    const tail = await runCli(['logs', runId, '--tail', '2'], { home });
    expect(tail.stdout).toBe('done\nrun exited with code 0\n');

    const json = await runCli(['metrics', runId, '--json'], { home });
    expect(json.code, json.stderr).toBe(0);
    const node = `${runId}/node-0`;
    expect(JSON.parse(json.stdout) as MetricSeries[]).toEqual([
      {
        nodeId: node,
        cellId: null,
        name: 'loss',
        points: [
          [10, 0.3],
          [20, 0.2],
          [30, 0.1],
        ],
      },
      {
        nodeId: node,
        cellId: null,
        name: 'lr',
        points: [
          [10, 3e-4],
          [20, 3e-4],
          [30, 3e-4],
        ],
      },
      { nodeId: node, cellId: null, name: 'acc', points: [[1, 0.5]] },
    ]);
    expect(json.stderr).toMatch(/1 line\(s\) of \$TENDER_METRICS were no JSON object/);

    const csv = await runCli(['metrics', runId, '--csv', '--node', '0'], { home });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe(
      [
        'node,job,step,metric,value',
        'node-0,,10,loss,0.3',
        'node-0,,20,loss,0.2',
        'node-0,,30,loss,0.1',
        'node-0,,10,lr,0.0003',
        'node-0,,20,lr,0.0003',
        'node-0,,30,lr,0.0003',
        'node-0,,1,acc,0.5',
        '',
      ].join('\n'),
    );

    const shown = await runCli(['metrics', runId], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^node-0\nMETRIC +POINTS +LAST +MIN +MAX +LAST STEP\n/);
    expect(shown.stdout).toMatch(/\nloss +3 +0\.1 +0\.1 +0\.3 +30\n/);
    expect(shown.stdout).toMatch(/\nlr +3 +0\.0003 +0\.0003 +0\.0003 +30\n/);
    expect(shown.stdout).toMatch(/\nacc +1 +0\.5 +0\.5 +0\.5 +1\n/);

    const none = await runCli(['metrics', 'r-nosuchrun'], { home });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no run r-nosuchrun/);
    const noNode = await runCli(['metrics', runId, '--node', '7'], { home });
    expect(noNode.code).toBe(2);
    expect(noNode.stderr).toMatch(new RegExp(`run ${runId} has no node node-7`));
    const both = await runCli(['metrics', runId, '--json', '--csv'], { home });
    expect(both.code).toBe(2);

    const help = await runCli(['help'], { home });
    expect(help.stdout).toContain('tender metrics <runId> [--node N] [--json | --csv]');
  });
});

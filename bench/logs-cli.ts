// `tender logs` on a long log: a run's datastream of LINES agent records (written through
// the real Datastream class after a real one-line run on the local provider), printed by
// the built CLI into a pipe, against `cat` of the same lines as a plain text file. Prints
// lines/s of each, the ratio, and the CLI's peak RSS (`/usr/bin/time -v`): the log must
// print whole (the line count is checked) in memory that does not grow with its length.
// Figures only, no assertions.
// Usage: node bench/run.mjs logs-cli [lines=10000000]   (after `npm run build`)
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { homePaths } from '../src-main/base/paths';
import { Datastream } from '../src-main/datastream/datastream';
import { writeJob } from '../test/helpers/job-files';

const LINES = Number(process.argv[2] ?? 10_000_000);
const REPO = resolve(process.cwd()); // bench/run.mjs runs benches from the repository root
const CLI = join(REPO, 'out', 'cli', 'tender.js');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const root = mkdtempSync(join(tmpdir(), 'tender-bench-logs-'));
const home = join(root, 'home');
const env = { ...process.env, TENDER_HOME: home, NO_COLOR: '1' };
try {
  // A real run, so the ledger knows it and `tender logs` finds it as it would any other.
  const job = writeJob(root, 'job', '[job]\nname = "long-log"\nrun = "echo first"\n');
  execFileSync(process.execPath, [CLI, 'run', job, '--json'], { env, stdio: 'ignore' });
  const runId = (
    JSON.parse(
      execFileSync(process.execPath, [CLI, 'status', '--json'], { env, encoding: 'utf8' }),
    ) as { runs: { id: string }[] }
  ).runs[0]!.id;
  const nodeId = `${runId}/node-0`;

  // The datastream as an attached run would leave it (the agent's seqs continued), and the
  // same lines as plain text: what `tender logs` prints is the channel's lines, in order.
  const plain = join(root, 'plain.txt');
  const ds = new Datastream(homePaths(home).datastream);
  const before = (
    execFileSync(process.execPath, [CLI, 'logs', runId], { env, encoding: 'utf8' }) as string
  ).split('\n');
  before.pop();
  const fd = openSync(plain, 'w');
  writeSync(fd, before.map((l) => `${l}\n`).join(''));
  let seq = ds.lastSeq(nodeId, 'agent');
  const started = performance.now();
  let chunk = '';
  for (let i = 1; i <= LINES; i++) {
    const line = `step ${i} loss ${(1 / (1 + i / 1e5)).toFixed(4)} lr 3.0e-4 tok/s ${40_000 + (i % 977)}`;
    ds.append(nodeId, 'agent', {
      seq: ++seq,
      ts: 1_764_480_000_000 + i,
      source: 'run',
      stream: 'stdout',
      line,
    });
    chunk += `${line}\n`;
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  ds.close();
  const expected = before.length + LINES;
  const jsonl = statSync(join(homePaths(home).datastream, runId, 'node-0', 'agent.jsonl')).size;
  console.log(
    `datastream: ${fmt(expected)} records, ${fmt(jsonl / 2 ** 20)} MiB JSONL ` +
      `(written in ${((performance.now() - started) / 1000).toFixed(1)} s); plain text ${fmt(statSync(plain).size / 2 ** 20)} MiB`,
  );

  /** Runs `cmd` into a pipe read by `wc -l`; wall time, lines out, and peak RSS. */
  const piped = (cmd: string) => {
    const timeFile = join(root, 'time.txt');
    const t0 = performance.now();
    const r = spawnSync(
      'bash',
      ['-c', `set -o pipefail; /usr/bin/time -v -o ${timeFile} ${cmd} | wc -l`],
      {
        env,
        encoding: 'utf8',
      },
    );
    const wallS = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
    const rssKb = Number(
      /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, 'utf8'))?.[1],
    );
    return { wallS, lines: Number(r.stdout.trim()), rssMb: rssKb / 1024 };
  };

  // The page cache holds both files for every timing below: a warm read for each.
  piped(`cat ${plain}`);
  spawnSync('bash', [
    '-c',
    `cat ${join(homePaths(home).datastream, runId, 'node-0', 'agent.jsonl')} > /dev/null`,
  ]);
  const cat = piped(`cat ${plain}`);
  const tender = piped(`${process.execPath} ${CLI} logs ${runId}`);
  const start = piped(`${process.execPath} ${CLI} logs ${runId} --tail 1`);
  const whole =
    tender.lines === expected ? 'whole' : `NOT WHOLE: ${fmt(tender.lines)} of ${fmt(expected)}`;
  console.log(`cat:          ${fmt(cat.lines / cat.wallS)} lines/s (${cat.wallS.toFixed(2)} s)`);
  console.log(
    `tender logs:  ${fmt(tender.lines / tender.wallS)} lines/s (${tender.wallS.toFixed(2)} s, ${whole}), ` +
      `${(tender.wallS / cat.wallS).toFixed(1)}× cat's time`,
  );
  console.log(
    `  peak RSS ${tender.rssMb.toFixed(0)} MB; --tail 1 of the same log: ${start.wallS.toFixed(2)} s, peak RSS ${start.rssMb.toFixed(0)} MB (start-up and one page)`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}

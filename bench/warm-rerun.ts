// The inner loop: edit one file, run again on the same machine. Side by side in one run,
// medians over reps, a ~350-file real repository as the workspace, a BYO host over real
// sshd on loopback, a setup that stands in for `pip install -r requirements.txt` (cached):
//   Tender:  `tender rerun <previous run>` (the CLI: process start, claim of the warm node,
//            a delta push, setup skipped, run, outputs, kept warm again)
//   loop:    `rsync -a ws/ host:ws/ && ssh host 'cd ws && <run>'` — the hand-made loop
// and the time to the job's first line. Then the same rerun on a Vast node (the faithful
// fake, real sshd nodes), in process as the desktop app runs it: time to the first line.
// Targets: Tender ≤ 1.0× the loop; first line < 500 ms (BYO), < 1 s (Vast).
// Usage: node bench/run.mjs warm-rerun [reps=7] [setupS=10]   (after `npm run build`)
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeHosts } from '../src-main/providers/ssh/hosts-file';
import { startSshd } from '../test/helpers/sshd';
import { vastSetup } from '../test/helpers/vast-core';
import { hasCommand, median, ms, sshArgs } from './bench-helpers';

const REPS = Number(process.argv[2] ?? 7);
const SETUP_S = Number(process.argv[3] ?? 10);
const REPO = resolve(process.cwd()); // bench/run.mjs runs benches from the repository root
const CLI = join(REPO, 'out', 'cli', 'tender.js');
const BUNDLE = join(REPO, 'out', 'agent', 'tender-agent.cjs');
const RUN_CMD = 'head -n 1 train.py && python3 -c "print(1)" 2>/dev/null || true';

const root = mkdtempSync(join(tmpdir(), 'tender-bench-warm-'));
const home = join(root, 'home');
const ws = join(root, 'ws');
const fixture = await startSshd();

/** A real repository's tree: this one's sources and docs, cut to ~350 files. */
function makeWorkspace(): { files: number; bytes: number } {
  mkdirSync(ws, { recursive: true });
  for (const d of ['src-main', 'src-agent', 'docs'])
    cpSync(join(REPO, d), join(ws, d), { recursive: true });
  let files = 0;
  let bytes = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (files >= 350) rmSync(p);
      else {
        files++;
        bytes += statSync(p).size;
      }
    }
  };
  walk(ws);
  writeFileSync(join(ws, 'requirements.txt'), 'torch==2.4.0\nnumpy\n');
  writeFileSync(join(ws, 'train.py'), 'lr = 0 # edit 0\n');
  writeFileSync(
    join(ws, 'tender.toml'),
    `[job]
name = "inner-loop"
setup = "sleep ${SETUP_S}; touch $TENDER_ENV/ready"
setup_fingerprint = ["requirements.txt"]
run = "${RUN_CMD.replace(/"/g, '\\"')}"

[pool]
provider = "ssh"
hosts = ["h0"]

[policy]
after_job = "keep_warm"
idle_timeout = "30m"
`,
  );
  return { files: files + 3, bytes };
}

/** ms from spawn to the first stdout line containing `needle`, and to exit. */
function timeTo(cmd: string, args: string[], needle: string, env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ first: number; total: number; out: string }>((done, fail) => {
    const t0 = process.hrtime.bigint();
    const at = () => Number(process.hrtime.bigint() - t0) / 1e6;
    const child = spawn(cmd, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let first: number | null = null;
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (first === null && out.includes(needle)) first = at();
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => {
      if (code !== 0 || first === null)
        return fail(
          new Error(
            `${cmd} ${args.slice(0, 3).join(' ')} exited ${code}: ${(err || out).slice(-800)}`,
          ),
        );
      done({ first, total: at(), out: out + err });
    });
  });
}

const tenderEnv = { TENDER_HOME: home, TENDER_AGENT_BUNDLE: BUNDLE, NO_COLOR: '1' };
const lastRunId = (out: string) => /run (r-[a-z0-9]+) completed/.exec(out)?.[1];

try {
  if (!hasCommand('rsync')) throw new Error('rsync is not installed (apt-get install rsync)');
  const tree = makeWorkspace();
  mkdirSync(home, { recursive: true });
  const key = join(root, 'key');
  writeFileSync(key, fixture.clientKey.privateKey);
  chmodSync(key, 0o600);
  writeHosts(home, [
    { name: 'h0', host: fixture.host, port: fixture.port, user: fixture.user, identityFile: key },
  ]);
  const ssh = sshArgs(fixture, root);
  const remote = `${fixture.user}@${fixture.host}`;
  const rsyncE = `ssh ${ssh.join(' ')}`;
  console.log(
    `workspace: ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB; setup ${SETUP_S} s (cached after the first run)`,
  );

  // The first run rents (claims the host), bootstraps, builds the env: not measured.
  const cold = await timeTo(
    process.execPath,
    [CLI, 'run', join(ws, 'tender.toml')],
    'lr = 0',
    tenderEnv,
  );
  let prev = lastRunId(cold.out);
  if (!prev) throw new Error(`no run id in: ${cold.out.slice(-400)}`);
  console.log(`first run (cold: claim, bootstrap, full push, setup): ${ms(cold.total)}`);
  // The loop's first rsync: the host gets the full tree once, as Tender's did.
  await timeTo(
    'bash',
    ['-c', `rsync -a -e "${rsyncE}" ${ws}/ ${remote}:bench-ws/ && echo synced`],
    'synced',
  );

  const tender: { first: number; total: number }[] = [];
  const loop: { first: number; total: number }[] = [];
  const cliStart: number[] = [];
  for (let i = 1; i <= REPS; i++) {
    const order = i % 2 === 0 ? ['loop', 'tender'] : ['tender', 'loop'];
    writeFileSync(join(ws, 'train.py'), `lr = ${i} # edit ${i}\n`);
    for (const which of order) {
      if (which === 'tender') {
        const r = await timeTo(process.execPath, [CLI, 'rerun', prev!], `lr = ${i}`, tenderEnv);
        if (!/reusing warm node/.test(r.out))
          throw new Error(`the rerun did not reuse the warm node:\n${r.out}`);
        if (/sleep \d+; touch/.test(r.out) && !/setup skipped/.test(r.out))
          throw new Error('setup was not cached');
        prev = lastRunId(r.out) ?? prev;
        tender.push(r);
      } else {
        const cmd = `rsync -a -e "${rsyncE}" ${ws}/ ${remote}:bench-ws/ && ssh ${ssh.join(' ')} ${remote} 'cd bench-ws && ${RUN_CMD}'`;
        loop.push(await timeTo('bash', ['-c', cmd], `lr = ${i}`));
      }
    }
    cliStart.push((await timeTo(process.execPath, [CLI, '--version'], '.')).total);
  }
  const t = {
    first: median(tender.map((r) => r.first)),
    total: median(tender.map((r) => r.total)),
  };
  const l = { first: median(loop.map((r) => r.first)), total: median(loop.map((r) => r.total)) };
  console.log(`\nwarm rerun after editing one file, BYO host over sshd (median of ${REPS}):`);
  console.log(`  tender rerun        first line ${ms(t.first)}   done ${ms(t.total)}`);
  console.log(`  rsync -a + ssh cmd  first line ${ms(l.first)}   done ${ms(l.total)}`);
  console.log(
    `  (tender --version: ${ms(median(cliStart))}: the CLI's own start-up, inside the figures above)`,
  );
  console.log(`  ratio, first line   ${(t.first / l.first).toFixed(2)}×   (target ≤ 1.0×)`);
  console.log(`  ratio, done         ${(t.total / l.total).toFixed(2)}×`);
  console.log(`  first line < 500 ms: ${t.first < 500 ? 'PASS' : 'MISS'} (${ms(t.first)})`);

  await timeTo(process.execPath, [CLI, 'down', '--all'], 'confirmed', tenderEnv).catch(
    () => undefined,
  );

  // Vast (faithful fake, real sshd node), in process as the desktop app runs it.
  const v = await vastSetup();
  try {
    writeFileSync(join(v.work, 'train.py'), 'lr = 0\n');
    const input = {
      job: { name: 'v', run: 'head -n 1 train.py', workspace: { workdir: v.work, exclude: [] } },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
      keep: true,
    };
    await v.run(input);
    const firsts: number[] = [];
    for (let i = 1; i <= REPS; i++) {
      writeFileSync(join(v.work, 'train.py'), `lr = ${i}\n`);
      const t0 = performance.now();
      let first = 0;
      const off = v.core.bus.on('log.lines', ({ records }) => {
        if (!first && records.some((r) => r.line === `lr = ${i}`)) first = performance.now() - t0;
      });
      const view = await v.run(input);
      off();
      if (!view.nodes[0]?.claimedFrom)
        throw new Error('the Vast rerun did not claim the warm node');
      firsts.push(first);
    }
    console.log(
      `\nwarm rerun on a Vast node (fake), in process: first line ${ms(median(firsts))} (median of ${REPS}); < 1 s: ${median(firsts) < 1000 ? 'PASS' : 'MISS'}`,
    );
    await v.core.client.invoke('lease.destroyAll', {});
  } finally {
    await v.close();
  }
} finally {
  await fixture.stop();
  rmSync(root, { recursive: true, force: true });
}

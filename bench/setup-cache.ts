// Setup cached by default: the job file a newcomer writes (a setup, NO setup_fingerprint),
// `after_job = "keep_warm"` on a BYO host over real sshd on loopback, a ~360-file
// repository-like folder (generated, the same every time), a setup that sleeps SETUP_S
// seconds. Each rep edits one file and runs, side by side:
//   Tender:  `tender run tender.toml`, the whole command from process start to exit
//   loop:    `rsync -a ws/ host:ws/ && ssh host 'cd ws && <run>'` — the hand-made loop
// and counts how often setup ran (the host's own count, not Tender's word). Then where a
// warm rerun's time goes: the CLI's own start, and the job's steps as the run's events
// time them. Target: Tender ≤ 1.0× the loop, setup ran once.
// Usage: node bench/run.mjs setup-cache [reps=7] [setupS=10]   (after `npm run build`)
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { writeHosts } from '../src-main/providers/ssh/hosts-file';
import { startSshd } from '../test/helpers/sshd';
import { hasCommand, median, ms, rng, sshArgs } from './bench-helpers';

const REPS = Number(process.argv[2] ?? 7);
const SETUP_S = Number(process.argv[3] ?? 10);
const REPO = resolve(process.cwd()); // bench/run.mjs runs benches from the repository root
const CLI = join(REPO, 'out', 'cli', 'tender.js');
const BUNDLE = join(REPO, 'out', 'agent', 'tender-agent.cjs');
const RUN_CMD = 'head -n 1 train.py';

const root = mkdtempSync(join(tmpdir(), 'tender-bench-setup-cache-'));
const home = join(root, 'home');
const ws = join(root, 'ws');
const fixture = await startSshd();

/** A research repository's shape: a package of modules, tests, configs, docs, notebooks,
 *  scripts, dependency files at the top. Text of seeded sizes (0.3–12 KB). */
function makeRepo(): { files: number; bytes: number } {
  const next = rng(360);
  let files = 0;
  let bytes = 0;
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
    files++;
    bytes += Buffer.byteLength(text);
  };
  const body = (label: string) => {
    const lines = 10 + Math.floor(next() * 300);
    let t = `# ${label}\n`;
    for (let i = 0; i < lines; i++) t += `x_${i} = ${Math.floor(next() * 1e6)}  # ${label}\n`;
    return t;
  };
  const groups: [string, string, number][] = [
    ['src/model', 'py', 90],
    ['src/data', 'py', 50],
    ['src/train', 'py', 40],
    ['src/utils', 'py', 30],
    ['tests', 'py', 60],
    ['configs', 'yaml', 40],
    ['docs', 'md', 30],
    ['scripts', 'sh', 10],
  ];
  for (const [dir, ext, n] of groups)
    for (let i = 0; i < n; i++) put(`${dir}/${dir.split('/').pop()}_${i}.${ext}`, body(dir));
  for (const d of ['src/model', 'src/data', 'src/train', 'src/utils']) put(`${d}/__init__.py`, '');
  put('README.md', body('readme'));
  put('setup.py', 'from setuptools import setup\nsetup(name="repo")\n');
  put('requirements.txt', 'torch==2.4.0\nnumpy\ntransformers==4.44.0\n');
  put('.gitignore', 'outputs/\n');
  put('train.py', 'lr = 0 # edit 0\n');
  put(
    'tender.toml',
    `[job]
name = "inner-loop"
setup = "sleep ${SETUP_S} && python3 -m venv $TENDER_ENV && echo built >> $HOME/setup-runs"
run = "${RUN_CMD}"

[pool]
provider = "ssh"
hosts = ["h0"]

[policy]
after_job = "keep_warm"
idle_timeout = "30m"
`,
  );
  return { files, bytes };
}

/** ms from spawn to exit; the output (stdout and stderr); fails unless it exits 0 and
 *  printed `needle`. */
function timed(cmd: string, args: string[], needle: string, env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ total: number; out: string; lines: [number, string][] }>((done, fail) => {
    const t0 = process.hrtime.bigint();
    const at = () => Number(process.hrtime.bigint() - t0) / 1e6;
    const child = spawn(cmd, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const lines: [number, string][] = []; // each output line with when it arrived
    const take = (c: Buffer) => {
      const t = at();
      out += c.toString();
      for (const line of c.toString().split('\n')) if (line.trim()) lines.push([t, line.trim()]);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => {
      const total = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0 || !out.includes(needle))
        return fail(
          new Error(`${cmd} ${args.slice(0, 3).join(' ')} exited ${code}: ${out.slice(-800)}`),
        );
      done({ total, out, lines });
    });
  });
}

const tenderEnv = { TENDER_HOME: home, TENDER_AGENT_BUNDLE: BUNDLE, NO_COLOR: '1' };
const setupRuns = () => {
  const f = join(fixture.home, 'setup-runs');
  return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0;
};

try {
  if (!hasCommand('rsync')) throw new Error('rsync is not installed (apt-get install rsync)');
  const tree = makeRepo();
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
    `workspace: ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB; setup sleeps ${SETUP_S} s; job file without setup_fingerprint`,
  );

  // The first run claims the host, bootstraps, pushes everything, builds the env: not measured.
  const job = join(ws, 'tender.toml');
  const cold = await timed(process.execPath, [CLI, 'run', job], 'lr = 0', tenderEnv);
  console.log(`first run (cold: claim, bootstrap, full push, setup): ${ms(cold.total)}`);
  await timed(
    'bash',
    ['-c', `rsync -a -e "${rsyncE}" ${ws}/ ${remote}:bench-ws/ && echo synced`],
    'synced',
  );

  const tender: number[] = [];
  const timelines: { total: number; lines: [number, string][] }[] = [];
  const loop: number[] = [];
  const cliStart: number[] = [];
  let lastOut = '';
  for (let i = 1; i <= REPS; i++) {
    writeFileSync(join(ws, 'train.py'), `lr = ${i} # edit ${i}\n`);
    for (const which of i % 2 === 0 ? ['loop', 'tender'] : ['tender', 'loop']) {
      if (which === 'tender') {
        const r = await timed(process.execPath, [CLI, 'run', job], `lr = ${i}`, tenderEnv);
        if (!/reusing warm node/.test(r.out))
          throw new Error(`the run did not reuse the warm node:\n${r.out}`);
        tender.push(r.total);
        timelines.push(r);
        lastOut = r.out;
      } else {
        const cmd = `rsync -a -e "${rsyncE}" ${ws}/ ${remote}:bench-ws/ && ssh ${ssh.join(' ')} ${remote} 'cd bench-ws && ${RUN_CMD}'`;
        loop.push((await timed('bash', ['-c', cmd], `lr = ${i}`)).total);
      }
    }
    cliStart.push((await timed(process.execPath, [CLI, '--version'], '.')).total);
  }
  const t = median(tender);
  const l = median(loop);
  console.log(
    `\nedit one file, \`tender run\` again, warm BYO host over sshd (median of ${REPS}):`,
  );
  console.log(
    `  tender run (whole command)  ${ms(t)}   [${tender.map((x) => x.toFixed(0)).join(', ')}]`,
  );
  console.log(
    `  rsync -a + ssh cmd          ${ms(l)}   [${loop.map((x) => x.toFixed(0)).join(', ')}]`,
  );
  console.log(
    `  ratio                       ${(t / l).toFixed(2)}×   (target ≤ 1.0×; before: 18.8×)`,
  );
  console.log(`  setup ran ${setupRuns()} time(s) in ${REPS + 1} runs (target: 1)`);
  console.log(
    `  tender --version            ${ms(median(cliStart))} (the CLI's own start, inside the figure above)`,
  );
  const skipped = lastOut.split('\n').find((line) => line.includes('setup skipped'));
  if (skipped) console.log(`  the log: ${skipped.trim()}`);

  // Where the median run's time went: each line of its output, when it arrived.
  const mid = timelines.find((r) => r.total === t) ?? timelines[0]!;
  console.log(`\nthe median run, line by line (ms since the command started):`);
  console.log(
    `  ${ms(median(cliStart)).padStart(7)}  (tender --version exits: the CLI's own start)`,
  );
  for (const [at, line] of mid.lines) console.log(`  ${ms(at).padStart(7)}  ${line.slice(0, 110)}`);
  console.log(`  ${ms(mid.total).padStart(7)}  (exit)`);

  await timed(process.execPath, [CLI, 'down', '--all'], 'confirmed', tenderEnv).catch(
    () => undefined,
  );
} finally {
  await fixture.stop();
  rmSync(root, { recursive: true, force: true });
}

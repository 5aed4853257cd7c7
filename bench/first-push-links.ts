// A first push on four links, whole `tender run` (the CLI: process start, BYO host claim,
// bootstrap, the workspace's first push, the job, teardown) against the hand-made push of
// the same folder, side by side in one run, rotated each rep:
//   tender run            a fresh data folder: the endpoint's link is not known yet
//   tender run, known     a fresh data folder holding only the link rate the first run
//                         measured (cache/link-rates.json): what every later push sees
//   tar -c | ssh host tar -x            and   tar -c | gzip -1 | ssh host tar -xz
//   tender run, empty     the same job on a workspace of its job file alone: a run's fixed
//                         cost on that link (the CLI's start, the claim, the bootstrap, the
//                         job, the teardown), to read how much of each run is its push
// Links (shaped-link.ts: the node's sshd in a network namespace behind a veth pair, tbf for
// the rate, a delay proxy for the round trip: this kernel has no netem):
//   loopback (sshd on 127.0.0.1), 100 Mbit/s with a short round trip (straight across the
//   veth), 100 Mbit/s + 40 ms (through the delay proxy), 1 Gbit/s (straight across).
// Workspace: this repository's src-main, src-agent and docs (~720 files, 2.6 MB), a 50 MiB
// CSV from a seeded generator and a 50 MiB random checkpoint (`.pt`). Every push goes to a
// fresh folder, after `sync`; every ssh is a fresh connection, as a user types it.
// Target: tender run ≤ 1.0× the better of the two baselines on each link.
// Usage: node bench/run.mjs first-push-links [reps=3] [dataMB=50]   (as root, after `npm run build`)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { linkRatesFile } from '../src-main/jobs/workspace/link-rates';
import { writeHosts } from '../src-main/providers/ssh/hosts-file';
import { startSshd } from '../test/helpers/sshd';
import { csvDataset, ensureDir, makeNodeDisk, median, ms, sh, timed } from './bench-helpers';
import { shapedLink } from '../test/helpers/shaped-link';

const REPS = Number(process.argv[2] ?? 3);
const DATA_MB = Number(process.argv[3] ?? 50);
const REPO = resolve(process.cwd()); // bench/run.mjs runs benches from the repository root
const CLI = join(REPO, 'out', 'cli', 'tender.js');
const BUNDLE = join(REPO, 'out', 'agent', 'tender-agent.cjs');

const root = mkdtempSync(join(tmpdir(), 'tender-bench-links-'));
const ws = join(root, 'ws');
const emptyWs = join(root, 'ws-empty');
const nodeDisk = makeNodeDisk();
const fixture = await startSshd({ baseDir: nodeDisk.path });
const link = await shapedLink(fixture, { dir: root, mbit: 100, rttMs: 40 });
const key = join(root, 'client-key');
writeFileSync(key, fixture.clientKey.privateKey);
chmodSync(key, 0o600);

interface Endpoint {
  name: string;
  host: string;
  port: number;
  /** tbf rate in Mbit/s, null: unshaped. */
  mbit: number | null;
}

let homes = 0;
/** A fresh data folder whose hosts.toml names `e` as host h0; `rates`: a link-rates file
 *  to start with. */
function freshHome(e: Endpoint, rates?: string): string {
  const home = join(root, `home-${homes++}`);
  mkdirSync(home, { recursive: true });
  writeHosts(home, [
    { name: 'h0', host: e.host, port: e.port, user: fixture.user, identityFile: key },
  ]);
  if (rates) {
    mkdirSync(join(home, 'cache'), { recursive: true });
    copyFileSync(rates, linkRatesFile(home));
  }
  return home;
}

/** Runs the CLI; resolves with its output, or fails naming it. */
function tender(home: string, args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, TENDER_HOME: home, TENDER_AGENT_BUNDLE: BUNDLE, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) =>
      code === 0
        ? done(out)
        : fail(new Error(`tender ${args[0]} exited ${code}: ${out.slice(-800)}`)),
    );
  });
}

const ssh = (e: Endpoint) =>
  `ssh -p ${e.port} -i ${key} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null ` +
  `-o LogLevel=ERROR -o BatchMode=yes ${fixture.user}@${e.host}`;
/** Removes what the pushes left on the node (same disk and user whatever the link). */
const cleanNode = () => sh(`rm -rf ${fixture.home}/.tender/nodes ${fixture.home}/bench-*`);

try {
  buildWorkspace();
  const loopback: Endpoint = {
    name: 'loopback',
    host: fixture.host,
    port: fixture.port,
    mbit: null,
  };
  const veth = { host: link.direct.host, port: link.direct.port };
  const endpoints: Endpoint[] = [
    loopback,
    { name: '100 Mbit/s, short round trip', ...veth, mbit: 100 },
    { name: '100 Mbit/s + 40 ms', host: '127.0.0.1', port: link.proxyPort!, mbit: 100 },
    { name: '1 Gbit/s', ...veth, mbit: 1000 },
  ];
  const size = Number(
    (await import('node:child_process'))
      .execFileSync('du', ['-sb', ws], { encoding: 'utf8' })
      .split('\t')[0],
  );
  console.log(`workspace: ${(size / 1e6).toFixed(1)} MB; node's disk: ${nodeDisk.label}`);
  // Once, not measured: installs the agent on the host (as any first use of a host does).
  await tender(freshHome(loopback), ['run', join(ws, 'tender.toml')]);
  await cleanNode();

  const rows: string[] = [];
  for (const e of endpoints) {
    link.setRate(e.mbit);
    const times: Record<string, number[]> = {
      tender: [],
      known: [],
      tar: [],
      gzip: [],
      empty: [],
    };
    const notes: string[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      let rates: string | undefined;
      const runs: Record<string, () => Promise<void>> = {
        tender: async () => {
          const home = freshHome(e);
          const t = await timed(() => tender(home, ['run', join(ws, 'tender.toml')]));
          times.tender!.push(t.ms);
          notes.push(`first: ${pushLine(t.value)}`);
          if (existsSync(linkRatesFile(home))) rates = linkRatesFile(home);
        },
        known: async () => {
          if (!rates) return; // runs after the first in each rotation below
          const t = await timed(() =>
            tender(freshHome(e, rates), ['run', join(ws, 'tender.toml')]),
          );
          times.known!.push(t.ms);
          notes.push(`known: ${pushLine(t.value)}`);
        },
        empty: async () => {
          const home = freshHome(e);
          const t = await timed(() => tender(home, ['run', join(emptyWs, 'tender.toml')]));
          times.empty!.push(t.ms);
        },
        tar: async () => {
          const dir = `bench-tar-${rep}`;
          const cmd = `tar -C ${ws} -cf - . | ${ssh(e)} 'mkdir -p ${dir} && tar -C ${dir} -xf -'`;
          times.tar!.push((await timed(() => sh(cmd))).ms);
        },
        gzip: async () => {
          const dir = `bench-gz-${rep}`;
          const cmd = `tar -C ${ws} -cf - . | gzip -1 | ${ssh(e)} 'mkdir -p ${dir} && tar -C ${dir} -xzf -'`;
          times.gzip!.push((await timed(() => sh(cmd))).ms);
        },
      };
      // Rotated, but the known-link run always after the first run of its rep.
      const order = [['tender', 'known'], ['tar'], ['gzip'], ['empty']];
      const rotated = [...order.slice(rep % 4), ...order.slice(0, rep % 4)].flat();
      for (const name of rotated) {
        await sh('sync');
        await runs[name]!();
        await cleanNode();
      }
    }
    const m = Object.fromEntries(
      Object.entries(times).map(([k, v]) => [k, v.length > 0 ? median(v) : Number.NaN]),
    );
    const best = Math.min(m.tar!, m.gzip!);
    const each = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ');
    console.log(`\n${e.name} (median of ${REPS}):`);
    console.log(
      `  tender run (link unknown)   ${ms(m.tender!)}   ${(m.tender! / best).toFixed(2)}× the better baseline`,
    );
    console.log(`  tender run (link known)     ${ms(m.known!)}   ${(m.known! / best).toFixed(2)}×`);
    console.log(`  tar -c | ssh                ${ms(m.tar!)}`);
    console.log(`  tar -c | gzip -1 | ssh      ${ms(m.gzip!)}`);
    console.log(
      `  tender run, empty workspace ${ms(m.empty!)}   a run's fixed cost; the push's share: (known − empty) / best ${((m.known! - m.empty!) / best).toFixed(2)}×`,
    );
    console.log(
      `  each rep (ms): tender ${each(times.tender!)} | known ${each(times.known!)} | tar ${each(times.tar!)} | gzip ${each(times.gzip!)} | empty ${each(times.empty!)}`,
    );
    for (const n of [...new Set(notes)]) console.log(`  ${n}`);
    rows.push(
      `| ${e.name} | ${ms(m.tender!)} | ${ms(m.known!)} | ${ms(m.tar!)} | ${ms(m.gzip!)} | ${(m.tender! / best).toFixed(2)}× | ${(m.known! / best).toFixed(2)}× | ${ms(m.empty!)} | ${((m.known! - m.empty!) / best).toFixed(2)}× |`,
    );
  }
  console.log(
    '\n| link | tender run | tender run, link known | tar \\| ssh | tar \\| gzip -1 \\| ssh | first / best | known / best | empty workspace | (known − empty) / best |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log('target: tender run ≤ 1.0× the better baseline on every link');
} finally {
  await link.close();
  await fixture.stop();
  nodeDisk.release();
  rmSync(root, { recursive: true, force: true });
}

/** The run's line about its push (what it sent, compressed or not, the link it measured). */
function pushLine(out: string): string {
  return /workspace ready:[^\n]*/.exec(out)?.[0] ?? '(no push line)';
}

/** Copies of this repository's sources and docs, a CSV dataset, a random checkpoint and the
 *  job file (a BYO host, no setup, a job that lists the workspace). */
function buildWorkspace(): void {
  ensureDir(join(ws, 'repo'));
  for (const d of ['src-main', 'src-agent', 'docs'])
    cpSync(join(REPO, d), join(ws, 'repo', d), { recursive: true });
  ensureDir(join(ws, 'data'));
  writeFileSync(join(ws, 'data', 'train.csv'), csvDataset(DATA_MB * 1024 * 1024));
  ensureDir(join(ws, 'ckpt'));
  writeFileSync(join(ws, 'ckpt', 'model.pt'), randomBytes(DATA_MB * 1024 * 1024));
  const jobFile = `[job]
name = "first-push"
run = "ls data ckpt"

[pool]
provider = "ssh"
hosts = ["h0"]
`;
  writeFileSync(join(ws, 'tender.toml'), jobFile);
  ensureDir(emptyWs);
  writeFileSync(join(emptyWs, 'tender.toml'), jobFile.replace('ls data ckpt', 'ls'));
}

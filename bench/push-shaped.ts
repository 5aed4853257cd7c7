// Workspace first push over a laptop's uplink to a rented host, simulated: 100 Mbit/s both
// ways and +40 ms round trip (shaped-link.ts: tbf on a veth pair, a delay proxy), side by
// side in one run:
//   Tender (compression as the app decides it)  vs  Tender, compression off
//   vs  tar -c | ssh host tar -x  vs  tar -cz | ssh host tar -xz
// then the same pushes across the veth unshaped (a fast link, where the CPU is the limit).
// Workspace: this repository's src-main, src-agent and docs (~400 text files, 2.6 MB), a
// CSV dataset from a seeded generator (gzip -6 shrinks it ~4.9×) and a random checkpoint
// (`.pt`, incompressible), 50 MB each by default. tar and ssh run over one ControlMaster
// connection opened beforehand, as Tender's pushes run over the shell the app holds; what
// a fresh `ssh` would add is printed apart. Every push goes to a new folder; pushes rotate
// their order with each rep, and each starts after `sync`. Prints medians and ratios.
// Targets (shaped): Tender ≤ 0.6× tar -c | ssh and ≤ 1.0× tar -cz | ssh.
// Where the time goes, and the bound on this machine: push-shaped.md.
// Usage: node bench/run.mjs push-shaped [reps=3] [dataMB=50]   (as root, after `npm run build`)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeManifestMemory } from '../src-main/jobs/workspace/node-manifest-memory';
import type { CompressionSetting } from '../src-main/jobs/workspace/push-compression';
import { scanWorkspace } from '../src-main/jobs/workspace/scan';
import { syncWorkspace, type SyncResult } from '../src-main/jobs/workspace/sync';
import { connectSsh, type SshShell } from '../src-main/transport/ssh-shell';
import { startSshd } from '../test/helpers/sshd';
import {
  csvDataset,
  ensureDir,
  installAgent,
  makeNodeDisk,
  median,
  ms,
  sh,
  timed,
} from './bench-helpers';
import { shapedLink } from '../test/helpers/shaped-link';

const REPS = Number(process.argv[2] ?? 3);
const DATA_MB = Number(process.argv[3] ?? 50);
const MBIT = 100;
const RTT_MS = 40;
const settle = () => sh('sync');

const root = mkdtempSync(join(tmpdir(), 'tender-bench-shaped-'));
const ws = join(root, 'ws');
const nodeDisk = makeNodeDisk();
const fixture = await startSshd({ baseDir: nodeDisk.path });
const link = await shapedLink(fixture, { dir: root, mbit: MBIT, rttMs: RTT_MS });
const shells: SshShell[] = [];
const masters: string[] = [];
try {
  buildWorkspace();
  const scan0 = await scanWorkspace(ws, []);
  const totalMB = scan0.totalBytes / 1e6;
  const tgzMB =
    Number(execFileSync('bash', ['-c', `tar -C ${ws} -czf - . | wc -c`], { encoding: 'utf8' })) /
    1e6;
  console.log(
    `workspace: ${scan0.files.length} files, ${totalMB.toFixed(1)} MB (tar -cz: ${tgzMB.toFixed(1)} MB); node's disk: ${nodeDisk.label}`,
  );

  const key = join(root, 'client-key');
  writeFileSync(key, fixture.clientKey.privateKey);
  chmodSync(key, 0o600);
  const target = `${fixture.user}@`;
  const sshOpts = (host: string, port: number, master?: string) =>
    [
      `-p ${port} -i ${key} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null`,
      '-o LogLevel=ERROR -o BatchMode=yes',
      master ? `-o ControlMaster=auto -o ControlPath=${master} -o ControlPersist=600` : '',
    ].join(' ') + ` ${target}${host}`;

  /** One way to the node: Tender shells (`connect`, with the agent on the node), and ssh
   *  over a master. Each Tender push gets a connection of its own, as each node of a run
   *  has: a connection remembers a fast link and stops compressing over it. The agent's
   *  install times an exec to the endpoint, as a bootstrap's execs do: across the unshaped
   *  veth that is a LAN's grant (~1 ms), so pushes there go plain from the first. */
  const way = async (name: string, slug: string, host: string, port: number) => {
    const connect = async () => {
      const shell = await connectSsh(
        { host, port, user: fixture.user, privateKey: fixture.clientKey.privateKey },
        {
          hostKey: (info) => (info.fingerprint === link.hostKeyFingerprint ? null : 'not the node'),
          signal: AbortSignal.timeout(60_000),
          deadlineMs: 30_000,
        },
      );
      shells.push(shell);
      return shell;
    };
    const agent = await installAgent(await connect());
    const master = join(root, `cm-${slug}`);
    masters.push(sshOpts(host, port, master));
    const fresh = await timed(() => sh(`ssh ${sshOpts(host, port)} true`));
    await sh(`ssh ${sshOpts(host, port, master)} true`); // opens the master
    const exec = await timed(() => sh(`ssh ${sshOpts(host, port, master)} true`));
    console.log(
      `${name}: a fresh ssh connection ${ms(fresh.ms)}, an exec over the open one ${ms(exec.ms)}`,
    );
    return { connect, agent, ssh: sshOpts(host, port, master) };
  };

  const measure = async (label: string, w: Awaited<ReturnType<typeof way>>, reps: number) => {
    const times: Record<string, number[]> = { tender: [], off: [], tar: [], tgz: [] };
    const results: SyncResult[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const tender = (c: CompressionSetting, into: number[]) => async () => {
        const name = `${label}-${c}-${rep}`;
        const shell = await w.connect();
        const t = await timed(async () =>
          syncWorkspace(
            shell,
            { ...w.agent, dirWord: `"$HOME"/.tender/nodes/${name}` },
            await scanWorkspace(ws, []),
            {
              hashCacheFile: join(root, `hashes-${name}.json`),
              memory: { store: new NodeManifestMemory(join(root, `manifests-${name}`)), key: name },
              compression: c,
            },
          ),
        );
        await shell.close();
        into.push(t.ms);
        if (c === 'auto') results.push(t.value);
      };
      const tar = (z: string, into: number[]) => async () => {
        const dir = `${label}-tar${z}-${rep}`;
        const cmd = `tar -C ${ws} -c${z}f - . | ssh ${w.ssh} 'mkdir -p ${dir} && tar -C ${dir} -x${z}f -'`;
        into.push((await timed(() => sh(cmd))).ms);
      };
      const pushes = [
        tender('auto', times.tender!),
        tender('off', times.off!),
        tar('', times.tar!),
        tar('z', times.tgz!),
      ];
      for (let k = 0; k < pushes.length; k++) {
        await settle();
        await pushes[(k + rep) % pushes.length]!();
      }
      await sh(`ssh ${w.ssh} 'rm -rf ${label}-* .tender/nodes/${label}-*'`);
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<
      string,
      number
    >;
    const rate = (x: number) => `${(totalMB / (x / 1000)).toFixed(1)} MB/s`;
    const last = results.at(-1)!;
    const wire = last.tarBytes
      ? `compressed: ${(last.tarBytes / 1e6).toFixed(1)} MB of tar as ${(last.streamBytes / 1e6).toFixed(1)} MB; segments tried, by quality: ${JSON.stringify(last.segments)}`
      : `not compressed: ${(last.streamBytes / 1e6).toFixed(1)} MB`;
    console.log(`\n${label} (median of ${reps}):`);
    console.log(`  tender                ${ms(m.tender!)}   (${rate(m.tender!)}; ${wire})`);
    console.log(`  tender, compression off ${ms(m.off!)}   (${rate(m.off!)})`);
    console.log(`  tar -c | ssh          ${ms(m.tar!)}   (${rate(m.tar!)})`);
    console.log(`  tar -cz | ssh         ${ms(m.tgz!)}   (${rate(m.tgz!)})`);
    console.log(`  ratio tender / tar -c | ssh:  ${(m.tender! / m.tar!).toFixed(2)}×`);
    console.log(`  ratio tender / tar -cz | ssh: ${(m.tender! / m.tgz!).toFixed(2)}×`);
    console.log(`  ratio tender / tender, compression off: ${(m.tender! / m.off!).toFixed(2)}×`);
    const each = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ');
    console.log(
      `  each rep (ms): tender ${each(times.tender!)} | off ${each(times.off!)} | tar ${each(times.tar!)} | tar -cz ${each(times.tgz!)}`,
    );
    return m;
  };

  console.log(`link: ${MBIT} Mbit/s each way (tbf), +${RTT_MS} ms round trip (delay proxy)`);
  const shaped = await measure(
    `shaped`,
    await way('shaped (through the delay proxy)', 'shaped', '127.0.0.1', link.proxyPort!),
    REPS,
  );
  console.log(
    `  targets: tender ≤ 0.6× tar -c | ssh (${(shaped.tender! / shaped.tar!).toFixed(2)}×), ≤ 1.0× tar -cz | ssh (${(shaped.tender! / shaped.tgz!).toFixed(2)}×)`,
  );

  link.setRate(null);
  console.log('\nlink: the same veth, unshaped and undelayed (a fast link: the CPU is the limit)');
  await measure(
    'fast',
    await way('fast (straight across the veth)', 'fast', link.direct.host, link.direct.port),
    REPS,
  );
} finally {
  for (const s of shells) await s.close();
  for (const m of masters) await sh(`ssh -O exit ${m} 2>/dev/null`).catch(() => {});
  await link.close();
  await fixture.stop();
  nodeDisk.release();
  rmSync(root, { recursive: true, force: true });
}

/** Copies of this repository's sources and docs, a CSV dataset and a random checkpoint. */
function buildWorkspace(): void {
  ensureDir(join(ws, 'repo'));
  execFileSync('cp', ['-r', 'src-main', 'src-agent', 'docs', join(ws, 'repo')]);
  ensureDir(join(ws, 'data'));
  writeFileSync(join(ws, 'data', 'train.csv'), csvDataset(DATA_MB * 1024 * 1024));
  ensureDir(join(ws, 'ckpt'));
  writeFileSync(join(ws, 'ckpt', 'model.pt'), randomBytes(DATA_MB * 1024 * 1024));
}

// Workspace push to a real sshd on loopback, side by side in one run:
//   first push:  Tender (cold hash cache, and warm)  vs  tar -c | ssh host tar -x  vs  rsync
//   re-push after touching 10 files:  Tender (delta)  vs  rsync
// Tender pushes as the app does: the first push as a run's materialize step makes it (one
// exec of `recv-workspace`), re-pushes over a workspace session as live sync does (opened
// once per node, timed on its own); a one-shot re-push (an exec and a node process per
// push) is printed too. The first pushes rotate their order with each rep, and each measurement
// starts after `sync`. The node's home is on a fresh journaled ext4 (a loop image), as a
// rented node's would be: see makeNodeDisk for why not this VM's own disk.
// Workspace: ~5 000 files of 1–20 KB plus 5 files of 50 MB. Prints medians and ratios.
// Targets: first push ≤ 1.0× tar|ssh, re-push ≤ 0.5× rsync.
// Usage: node bench/run.mjs push [reps=5] [bigMB=50]   (as root, after `npm run build`)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanWorkspace } from '../src-main/jobs/workspace/scan';
import { NodeManifestMemory } from '../src-main/jobs/workspace/node-manifest-memory';
import { syncWorkspace } from '../src-main/jobs/workspace/sync';
import { WorkspaceSession } from '../src-main/jobs/workspace/sync-session';
import { startSshd } from '../test/helpers/sshd';
import {
  connect,
  ensureDir,
  hasCommand,
  installAgent,
  makeNodeDisk,
  median,
  ms,
  randomBytesFrom,
  rng,
  sh,
  sshArgs,
  timed,
} from './bench-helpers';

const REPS = Number(process.argv[2] ?? 5);
// Each measurement starts with the disk idle: the writeback of the push before it (over
// 300 MB) would otherwise land in whichever comes next.
const settle = () => sh('sync');
const RE_ROUNDS = 5;
const BIG_MB = Number(process.argv[3] ?? 50);
const SMALL_FILES = 5_000;

const root = mkdtempSync(join(tmpdir(), 'tender-bench-push-'));
const ws = join(root, 'ws');
const nodeDisk = makeNodeDisk();
const fixture = await startSshd({ baseDir: nodeDisk.path });
try {
  if (!hasCommand('rsync')) throw new Error('rsync is not installed (apt-get install rsync)');
  const next = rng(42);
  for (let i = 0; i < SMALL_FILES; i++) {
    const dir = join(ws, `pkg${Math.floor(i / 100)}`, `mod${Math.floor(i / 10) % 10}`);
    ensureDir(dir);
    writeFileSync(
      join(dir, `file${i}.py`),
      randomBytesFrom(next, 1024 + Math.floor(next() * 19 * 1024)),
    );
  }
  ensureDir(join(ws, 'weights'));
  for (let i = 0; i < 5; i++)
    writeFileSync(join(ws, 'weights', `shard${i}.bin`), randomBytes(BIG_MB * 1024 * 1024));
  const scan0 = await scanWorkspace(ws, []);
  const totalMB = scan0.totalBytes / 1e6;
  console.log(
    `workspace: ${scan0.files.length} files, ${totalMB.toFixed(0)} MB; sshd on 127.0.0.1:${fixture.port}`,
  );
  console.log(`node's disk: ${nodeDisk.label}`);

  const shell = await connect(fixture);
  const agent = await installAgent(shell);
  const ssh = sshArgs(fixture, root).join(' ');
  const target = `${fixture.user}@127.0.0.1`;

  // A hash cache that knows the workspace (what a second run from this machine finds):
  // filled by one untimed push, which also warms the JIT as a long-running app is.
  const warmCache = join(root, 'hashes-warm.json');
  await syncWorkspace(
    shell,
    { ...agent, dirWord: `"$HOME"/.tender/nodes/bench-warm-up` },
    await scanWorkspace(ws, []),
    { hashCacheFile: warmCache },
  );
  await sh(`ssh ${ssh} ${target} 'rm -rf .tender/nodes/bench-warm-up'`);

  const tender: number[] = [];
  const tenderWarm: number[] = [];
  const tarSsh: number[] = [];
  const rsyncFirst: number[] = [];
  const tenderRe: number[] = [];
  const tenderOneShot: number[] = [];
  const sessionOpen: number[] = [];
  const rsyncRe: number[] = [];
  let lastTender = '';
  // A node of its own for each Tender first push, and what the app remembers it pushed
  // there (as a run's materialize step does); `hashCacheFile` says what it must hash.
  const tenderNode = (name: string) => ({
    address: { ...agent, dirWord: `"$HOME"/.tender/nodes/${name}` },
    memory: { store: new NodeManifestMemory(join(root, `manifests-${name}`)), key: name },
  });
  const tenderFirst =
    (node: ReturnType<typeof tenderNode>, hashCacheFile: string, into: number[]) => async () => {
      const first = await timed(async () =>
        syncWorkspace(shell, node.address, await scanWorkspace(ws, []), {
          hashCacheFile,
          memory: node.memory,
        }),
      );
      into.push(first.ms);
    };
  for (let rep = 0; rep < REPS; rep++) {
    // The re-pushes below go to this one.
    const repNode = tenderNode(`bench-${rep}`);
    const { address, memory } = repNode;
    const cache = join(root, `hashes-${rep}.json`); // cold cache: the first push hashes everything
    // The four first pushes, in an order that rotates with each rep.
    const firstPushes: (() => Promise<void>)[] = [
      tenderFirst(repNode, cache, tender),
      tenderFirst(tenderNode(`bench-warm-${rep}`), warmCache, tenderWarm),
      async () => {
        const cmd = `tar -C ${ws} -cf - . | ssh ${ssh} ${target} 'mkdir -p tar-${rep} && tar -C tar-${rep} -xf -'`;
        tarSsh.push((await timed(() => sh(cmd))).ms);
      },
      async () => {
        const cmd = `rsync -a -e "ssh ${ssh}" ${ws}/ ${target}:rsync-${rep}/`;
        rsyncFirst.push((await timed(() => sh(cmd))).ms);
      },
    ];
    for (let k = 0; k < firstPushes.length; k++) {
      await settle();
      await firstPushes[(k + rep) % firstPushes.length]!();
    }

    // Rounds of: touch 10 small files (new content, same size class), then re-push with
    // Tender's session, then with rsync (each sees the same 10 changes). Then once more
    // with a one-shot Tender push (no session) and rsync.
    const touch = (salt: number) => {
      for (let k = 0; k < 10; k++) {
        const i = (rep * 97 + k * 487 + salt * 13) % SMALL_FILES;
        const dir = join(ws, `pkg${Math.floor(i / 100)}`, `mod${Math.floor(i / 10) % 10}`);
        writeFileSync(join(dir, `file${i}.py`), randomBytes(2048 + k));
      }
    };
    const rsyncAgain = async () => {
      await settle();
      rsyncRe.push(
        (await timed(() => sh(`rsync -a -e "ssh ${ssh}" ${ws}/ ${target}:rsync-${rep}/`))).ms,
      );
    };
    await settle();
    const opened = await timed(() => WorkspaceSession.open(shell, address));
    const session = opened.value;
    sessionOpen.push(opened.ms);
    for (let round = 0; round < RE_ROUNDS; round++) {
      touch(round);
      await settle();
      const re = await timed(async () => {
        session.prepare(); // the node checks its side while this one scans
        return syncWorkspace(shell, address, await scanWorkspace(ws, []), {
          hashCacheFile: cache,
          memory,
          via: session,
        });
      });
      tenderRe.push(re.ms);
      lastTender = `${re.value.mode}: ${re.value.filesSent} files, ${re.value.bytesSent} bytes sent, ${re.value.unchanged} unchanged, ${re.value.hashed} hashed`;
      await rsyncAgain();
    }
    await session.close();
    touch(RE_ROUNDS);
    await settle();
    const oneShot = await timed(async () =>
      syncWorkspace(shell, address, await scanWorkspace(ws, []), {
        hashCacheFile: cache,
        memory,
      }),
    );
    tenderOneShot.push(oneShot.ms);
    await rsyncAgain();
    await sh(
      `ssh ${ssh} ${target} 'rm -rf tar-${rep} rsync-${rep} .tender/nodes/bench-${rep} .tender/nodes/bench-warm-${rep}'`,
    );
  }
  await shell.close();

  const m = {
    tender: median(tender),
    tenderWarm: median(tenderWarm),
    tarSsh: median(tarSsh),
    rsync: median(rsyncFirst),
    tenderRe: median(tenderRe),
    tenderOneShot: median(tenderOneShot),
    rsyncRe: median(rsyncRe),
  };
  console.log(`\nfirst push (median of ${REPS}):`);
  console.log(
    `  tender          ${ms(m.tender)}   (${(totalMB / (m.tender / 1000)).toFixed(0)} MB/s; cold hash cache: hashes all ${totalMB.toFixed(0)} MB)`,
  );
  console.log(
    `  tender, warm    ${ms(m.tenderWarm)}   (${(totalMB / (m.tenderWarm / 1000)).toFixed(0)} MB/s; hash cache knows the files: a later run's first push to a new node)`,
  );
  console.log(
    `  tar -c | ssh    ${ms(m.tarSsh)}   (${(totalMB / (m.tarSsh / 1000)).toFixed(0)} MB/s)`,
  );
  console.log(`  rsync -a -e ssh ${ms(m.rsync)}`);
  console.log(`  ratio tender / tar|ssh: ${(m.tender / m.tarSsh).toFixed(2)}×   (target ≤ 1.0×)`);
  console.log(`  ratio tender, warm / tar|ssh: ${(m.tenderWarm / m.tarSsh).toFixed(2)}×`);
  const each = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ');
  console.log(
    `  each rep (ms): tender ${each(tender)} | warm ${each(tenderWarm)} | tar|ssh ${each(tarSsh)} | rsync ${each(rsyncFirst)}`,
  );
  console.log(`\nre-push after touching 10 files (median of ${tenderRe.length}):`);
  console.log(`  tender          ${ms(m.tenderRe)}   (${lastTender})`);
  console.log(
    `  tender one-shot ${ms(m.tenderOneShot)}   (median of ${REPS}; no session: an exec and a node start per push)`,
  );
  console.log(`  rsync -a -e ssh ${ms(m.rsyncRe)}   (median of ${rsyncRe.length})`);
  console.log(`  (opening the session, once per node: ${ms(median(sessionOpen))})`);
  console.log(`  ratio tender / rsync: ${(m.tenderRe / m.rsyncRe).toFixed(2)}×   (target ≤ 0.5×)`);
} finally {
  await fixture.stop();
  nodeDisk.release();
  rmSync(root, { recursive: true, force: true });
}

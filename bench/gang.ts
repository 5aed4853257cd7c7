// Barrier skew of a distributed run: 3 ranks on 3 real sshd hosts (loopback addresses
// 127.0.0.2–4), each printing the time it started (`date +%s%N`, one clock: one machine);
// the skew is the last rank's start minus the first's. Beside it, the same three commands
// started by three `ssh host cmd` processes at once (the hand-made way), same measure.
// Target: < 200 ms. Usage: node bench/run.mjs gang [reps=5]   (after `npm run build`; root)
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/helpers/free-port';
import { startSshd, type SshdFixture } from '../test/helpers/sshd';
import { sshCore } from '../test/helpers/ssh-core';
import { median, ms } from './bench-helpers';

const REPS = Number(process.argv[2] ?? 5);
const N = 3;
const fixtures: SshdFixture[] = [];
for (let i = 0; i < N; i++) fixtures.push(await startSshd({ address: `127.0.0.${i + 2}` }));
const t = sshCore(fixtures);

const skews: number[] = [];
const handmade: number[] = [];
try {
  for (let rep = 0; rep < REPS; rep++) {
    const started = await t.core.client.invoke('run.start', {
      job: {
        name: 'gang-bench',
        run: 'date +%s%N',
        distributed: true,
        master_port: await freePort(),
        workspace: { workdir: t.work, exclude: [] },
      },
      pool: { provider: 'ssh', hosts: t.hosts.map((h) => h.name) },
    });
    if (!started.ok) throw new Error(started.error.message);
    await t.core.waitRun(started.value.id);
    const logs = await t.core.client.invoke('logs.read', {
      runId: started.value.id,
      channel: 'agent',
    });
    if (!logs.ok) throw new Error(logs.error.message);
    const times = logs.value.records
      .filter((r) => r.source === 'run')
      .map((r) => Number(r.line) / 1e6);
    if (times.length !== N) throw new Error(`expected ${N} start times, got ${times.length}`);
    skews.push(Math.max(...times) - Math.min(...times));

    const dir = mkdtempSync(join(tmpdir(), 'gang-bench-'));
    const outs = await Promise.all(
      fixtures.map((f, i) => {
        const key = join(dir, `k${i}`);
        writeFileSync(key, f.clientKey.privateKey, { mode: 0o600 });
        return new Promise<number>((resolve, reject) => {
          const p = spawn('ssh', [
            '-i',
            key,
            '-p',
            String(f.port),
            '-o',
            'StrictHostKeyChecking=no',
            '-o',
            'UserKnownHostsFile=/dev/null',
            '-o',
            'LogLevel=ERROR',
            `${f.user}@${f.host}`,
            'date +%s%N',
          ]);
          let out = '';
          p.stdout.on('data', (d: Buffer) => (out += d));
          p.on('exit', (code) =>
            code === 0 ? resolve(Number(out.trim()) / 1e6) : reject(new Error(`ssh exit ${code}`)),
          );
        });
      }),
    );
    handmade.push(Math.max(...outs) - Math.min(...outs));
  }
  console.log(`gang of ${N} over sshd (127.0.0.2–4), ${REPS} runs`);
  console.log(
    `Tender barrier skew: median ${ms(median(skews))}, max ${ms(Math.max(...skews))}   (target < 200 ms)`,
  );
  console.log(
    `3 × ssh host cmd at once: median ${ms(median(handmade))}, max ${ms(Math.max(...handmade))}`,
  );
} finally {
  await t.close();
  for (const f of fixtures) await f.stop();
}

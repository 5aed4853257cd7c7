// Port forward through a real sshd on loopback, side by side in one run:
//   throughput: a 200 MB download (node → here, what TensorBoard and Jupyter send) through
//               Tender's local forward  vs  `ssh -N -L` (OpenSSH's client, the fixture's key),
//               the latter with its default cipher and with the one ssh2 picks (AES-GCM)
//   first byte: local connect → the first byte of a server that greets at once, on a warm
//               SSH connection (each sample a new local connection, so a new channel)
// The servers on the "node" and the clients here are child processes of their own, so the
// bench process runs only what the app would: the forward (ssh2). Reps alternate.
// Targets: throughput ≥ 80% of ssh -L, first byte < 50 ms.
// Usage: node bench/run.mjs forward [reps=3] [MB=200]   (as root)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForwardSet } from '../src-main/nodes/forwards/forward-set';
import { startSshd } from '../test/helpers/sshd';
import { freePort } from '../test/helpers/free-port';
import { connect as connectShell, median, sshArgs } from './bench-helpers';

const REPS = Number(process.argv[2] ?? 3);
const MB = Number(process.argv[3] ?? 200);
const FIRST_BYTE_SAMPLES = 40;

// The node's servers: `bulk` sends MB megabytes and ends; `greet` writes one byte at once.
const SERVERS = `
const net = require('node:net');
const total = Number(process.argv[1]) * 1024 * 1024;
const chunk = Buffer.alloc(1 << 20, 7);
const bulk = net.createServer((s) => {
  s.on('error', () => {});
  let left = total;
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      left -= n;
      if (!s.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return s.once('drain', pump);
    }
    s.end();
  };
  pump();
});
const greet = net.createServer({ noDelay: true }, (s) => {
  s.on('error', () => {});
  s.write('x');
  s.resume();
});
bulk.listen(0, '127.0.0.1', () =>
  greet.listen(0, '127.0.0.1', () =>
    console.log(JSON.stringify({ bulk: bulk.address().port, greet: greet.address().port }))));
`;

// The clients here: `bulk PORT` reads to the end and prints bytes and ms; `first PORT N`
// prints N connect → first byte times in ms.
const CLIENT = `
const net = require('node:net');
const [mode, port, n] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3] ?? 1)];
const now = () => Number(process.hrtime.bigint()) / 1e6;
if (mode === 'bulk') {
  const t0 = now();
  let bytes = 0;
  const c = net.connect(port, '127.0.0.1');
  c.on('data', (d) => (bytes += d.length));
  c.on('end', () => console.log(JSON.stringify({ bytes, ms: now() - t0 })));
  c.on('error', (e) => { console.error(e.message); process.exit(1); });
} else {
  (async () => {
    const times = [];
    for (let i = 0; i < n; i++) {
      times.push(await new Promise((resolve, reject) => {
        const t0 = now();
        const c = net.connect({ port, host: '127.0.0.1', noDelay: true });
        c.once('data', () => { resolve(now() - t0); c.destroy(); });
        c.on('error', reject);
      }));
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log(JSON.stringify({ times }));
  })().catch((e) => { console.error(e.message); process.exit(1); });
}
`;

function node(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['-e', script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`client: ${err}`))));
  });
}

async function bulk(port: number): Promise<number> {
  const r = JSON.parse(await node(CLIENT, ['bulk', String(port)])) as { bytes: number; ms: number };
  if (r.bytes !== MB * 1024 * 1024) throw new Error(`got ${r.bytes} bytes, not ${MB} MiB`);
  return (r.bytes / 1e6 / r.ms) * 1000; // MB/s
}

async function firstBytes(port: number): Promise<number[]> {
  const out = await node(CLIENT, ['first', String(port), String(FIRST_BYTE_SAMPLES)]);
  return (JSON.parse(out) as { times: number[] }).times;
}

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.on('connect', () => (c.destroy(), resolve(true)));
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

/** `ssh -N -L` for both servers; resolves once both local ports listen. */
async function sshL(
  args: string[],
  target: string,
  ports: { bulk: number; greet: number },
  cipher?: string,
): Promise<{ bulk: number; greet: number; child: ChildProcess }> {
  const local = { bulk: await freePort(), greet: await freePort() };
  const child = spawn(
    'ssh',
    [
      ...args,
      ...(cipher ? ['-c', cipher] : []),
      ...['-o', 'ExitOnForwardFailure=yes', '-N'],
      ...['-L', `127.0.0.1:${local.bulk}:127.0.0.1:${ports.bulk}`],
      ...['-L', `127.0.0.1:${local.greet}:127.0.0.1:${ports.greet}`],
      target,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  await listening(local.bulk);
  await listening(local.greet);
  // A first connection through each, so every side is as warm as Tender's.
  await firstBytes(local.greet);
  return { ...local, child };
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

const root = mkdtempSync(join(tmpdir(), 'tender-bench-forward-'));
const fixture = await startSshd();
const servers = spawn(process.execPath, ['-e', SERVERS, String(MB)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const ports = await new Promise<{ bulk: number; greet: number }>((resolve) =>
    servers.stdout!.once('data', (d: Buffer) => resolve(JSON.parse(d.toString()))),
  );
  console.log(
    `${MB} MiB download and first byte through a forward; sshd on 127.0.0.1:${fixture.port}, ${REPS} reps`,
  );

  const set = new ForwardSet(() => connectShell(fixture));
  const tBulk = await set.openLocal({ remotePort: ports.bulk, localPort: 0 });
  const tGreet = await set.openLocal({ remotePort: ports.greet, localPort: 0 });
  await firstBytes(tGreet.localPort); // warm: the channel path and the JIT

  const args = sshArgs(fixture, root);
  const target = `${fixture.user}@127.0.0.1`;
  const sshDefault = await sshL(args, target, ports);
  const sshGcm = await sshL(args, target, ports, 'aes128-gcm@openssh.com');

  const rates = { tender: [] as number[], ssh: [] as number[], sshGcm: [] as number[] };
  for (let rep = 0; rep < REPS; rep++) {
    const order: [keyof typeof rates, number][] = [
      ['tender', tBulk.localPort],
      ['ssh', sshDefault.bulk],
      ['sshGcm', sshGcm.bulk],
    ];
    for (let k = 0; k < order.length; k++) {
      const [name, port] = order[(k + rep) % order.length]!;
      rates[name].push(await bulk(port));
    }
  }
  const first = {
    tender: await firstBytes(tGreet.localPort),
    ssh: await firstBytes(sshDefault.greet),
  };

  const mbs = (x: number) => `${x.toFixed(0)} MB/s`;
  const tender = median(rates.tender);
  const best = Math.max(median(rates.ssh), median(rates.sshGcm));
  console.log('throughput (median):');
  console.log(`  tender forward            ${mbs(tender)}   (${rates.tender.map(mbs).join(', ')})`);
  console.log(
    `  ssh -L (default cipher)   ${mbs(median(rates.ssh))}   (${rates.ssh.map(mbs).join(', ')})`,
  );
  console.log(
    `  ssh -L (aes128-gcm)       ${mbs(median(rates.sshGcm))}   (${rates.sshGcm.map(mbs).join(', ')})`,
  );
  console.log(`  ratio: tender / best ssh -L = ${(tender / best).toFixed(2)}   (target ≥ 0.80)`);
  const f = (xs: number[]) =>
    `median ${median(xs).toFixed(2)} ms, p90 ${quantile(xs, 0.9).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;
  console.log(`first byte (${FIRST_BYTE_SAMPLES} new local connections, warm SSH connection):`);
  console.log(`  tender forward   ${f(first.tender)}   (target < 50 ms)`);
  console.log(`  ssh -L           ${f(first.ssh)}`);

  sshDefault.child.kill();
  sshGcm.child.kill();
  await set.close();
} finally {
  servers.kill();
  await fixture.stop();
  rmSync(root, { recursive: true, force: true });
}

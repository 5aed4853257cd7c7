// A laptop-to-rented-host link for push benches, on one machine: the node's sshd runs in a
// network namespace behind a veth pair whose both ends are rate-limited with tbf (this
// kernel has no netem), and a delay proxy in a process of its own (delay-proxy.mjs) adds
// the round trip. The laptop (this process, tar, ssh) reaches the node through the proxy on
// 127.0.0.1, or directly across the veth for an unshaped comparison. The sshd serves the
// fixture's user (its home on the fixture's disk), with a host key of its own. Needs root.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SshdFixture } from './sshd';

export const NODE_ADDRESS = '10.77.0.2';
const LAPTOP_ADDRESS = '10.77.0.1';

export interface ShapedLink {
  /** The delay proxy's port on 127.0.0.1: the shaped, delayed way to the node's sshd
   *  (none when `rttMs` is 0). */
  proxyPort: number | undefined;
  /** The node's sshd straight across the veth (shaped while a rate is set, never delayed). */
  direct: { host: string; port: number };
  hostKeyFingerprint: string;
  /** Sets both directions to `mbit` Mbit/s, or takes the limit off (null). */
  setRate(mbit: number | null): void;
  close(): Promise<void>;
}

export async function shapedLink(
  fixture: SshdFixture,
  opts: { dir: string; mbit: number; rttMs: number },
): Promise<ShapedLink> {
  const ns = `tender-bench-${process.pid}`;
  const laptopEnd = `tb${process.pid}l`;
  const nodeEnd = `tb${process.pid}n`;
  const run = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { stdio: 'pipe' });
  const inNs = (cmd: string, ...args: string[]) => run('ip', 'netns', 'exec', ns, cmd, ...args);
  run('ip', 'netns', 'add', ns);
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children) c.kill('SIGTERM');
    // Whatever the node's sshd still runs for us (sessions closing), by pid.
    for (const pid of String(run('ip', 'netns', 'pids', ns))
      .split('\n')
      .filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    run('ip', 'netns', 'del', ns); // and the veth pair with it
  };
  try {
    run('ip', 'link', 'add', laptopEnd, 'type', 'veth', 'peer', 'name', nodeEnd);
    run('ip', 'link', 'set', nodeEnd, 'netns', ns);
    run('ip', 'addr', 'add', `${LAPTOP_ADDRESS}/24`, 'dev', laptopEnd);
    run('ip', 'link', 'set', laptopEnd, 'up');
    inNs('ip', 'addr', 'add', `${NODE_ADDRESS}/24`, 'dev', nodeEnd);
    inNs('ip', 'link', 'set', nodeEnd, 'up');
    inNs('ip', 'link', 'set', 'lo', 'up');
    const setRate = (mbit: number | null) => {
      for (const [exec, dev] of [
        [run, laptopEnd],
        [inNs, nodeEnd],
      ] as const) {
        if (mbit === null) exec('tc', 'qdisc', 'del', 'dev', dev, 'root');
        // burst: at least a timer tick's worth at this rate (4 ms at HZ 250: 500 KB at
        // 1 Gbit/s, or tbf caps below the rate); latency bounds the queue.
        else {
          const burst = Math.max(64 * 1024, Math.ceil((mbit * 1e6) / 8 / 250));
          exec(
            'tc',
            'qdisc',
            'replace',
            'dev',
            dev,
            'root',
            'tbf',
            'rate',
            `${mbit}mbit`,
            'burst',
            String(burst),
            'latency',
            '50ms',
          );
        }
      }
    };
    setRate(opts.mbit);
    const hostKeyFingerprint = nodeSshdFiles(fixture, opts.dir);
    children.push(await startNodeSshd(ns, join(opts.dir, 'sshd_config')));
    if (opts.rttMs <= 0) {
      const direct = { host: NODE_ADDRESS, port: 22 };
      return { proxyPort: undefined, direct, hostKeyFingerprint, setRate, close };
    }
    const proxy = spawn(
      process.execPath,
      [delayProxyScript(), '0', NODE_ADDRESS, '22', String(opts.rttMs / 2)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(proxy);
    const proxyPort = await new Promise<number>((resolve, reject) => {
      proxy.stdout!.once('data', (d: Buffer) =>
        resolve(Number(/listening (\d+)/.exec(d.toString())?.[1])),
      );
      proxy.once('exit', (code) => reject(new Error(`the delay proxy exited (${code})`)));
    });
    return {
      proxyPort,
      direct: { host: NODE_ADDRESS, port: 22 },
      hostKeyFingerprint,
      setRate,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** bench/delay-proxy.mjs, from this folder or bundled into out/bench/ (both two below the
 *  repository's root). */
function delayProxyScript(): string {
  return join(import.meta.dirname, '..', '..', 'bench', 'delay-proxy.mjs');
}

/** The node sshd's config, host key and authorized keys under `dir`; returns the host
 *  key's fingerprint (`SHA256:…`). */
function nodeSshdFiles(fixture: SshdFixture, dir: string): string {
  chmodSync(dir, 0o755); // sshd reads the authorized keys as the user
  const key = join(dir, 'node_host_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  writeFileSync(join(dir, 'node_authorized_keys'), `${fixture.clientKey.publicKey}\n`, {
    mode: 0o644,
  });
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `ListenAddress ${NODE_ADDRESS}`,
      `HostKey ${key}`,
      `PidFile ${join(dir, 'node-sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'node_authorized_keys')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'MaxSessions 20',
      'PrintMotd no',
      '',
    ].join('\n'),
  );
  return execFileSync('ssh-keygen', ['-l', '-f', `${key}.pub`], { encoding: 'utf8' }).split(
    ' ',
  )[1]!;
}

function startNodeSshd(ns: string, config: string): Promise<ChildProcess> {
  const sshd = spawn(
    'ip',
    ['netns', 'exec', ns, '/usr/sbin/sshd', '-D', '-e', '-f', config, '-p', '22'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let log = '';
    sshd.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-4000);
      if (/Server listening on /.test(log)) resolve(sshd);
    });
    sshd.once('exit', (code) => reject(new Error(`the node's sshd exited (${code}): ${log}`)));
  });
}

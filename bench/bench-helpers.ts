import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentBundle } from '../src-main/nodes/agent-bundle';
import { connectSsh, type SshShell } from '../src-main/transport/ssh-shell';
import { execCapture } from '../src-main/transport/exec-helpers';
import type { SshdFixture } from '../test/helpers/sshd';

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const ms = (x: number) => `${x.toFixed(0)} ms`;

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, value };
}

/** An SSH shell to the fixture, trusting exactly its host key. */
export function connect(f: SshdFixture): Promise<SshShell> {
  return connectSsh(
    { host: f.host, port: f.port, user: f.user, privateKey: f.clientKey.privateKey },
    {
      hostKey: (info) => (info.fingerprint === f.hostKeyFingerprint ? null : 'not the fixture'),
      signal: AbortSignal.timeout(60_000),
      deadlineMs: 30_000,
    },
  );
}

/** Puts the built agent on the fixture (what a bootstrap would have done). */
export async function installAgent(
  shell: SshShell,
): Promise<{ runtime: string; bundleWord: string }> {
  const bundle = loadAgentBundle();
  const bundleWord = `"$HOME"/.tender/cache/agent/tender-agent-${bundle.sha256.slice(0, 16)}.cjs`;
  await execCapture(shell, `mkdir -p "$HOME"/.tender/cache/agent && cat > ${bundleWord}`, {
    stdin: bundle.bytes,
  });
  return { runtime: 'node', bundleWord };
}

/** The system ssh client's options to reach the fixture (for tar | ssh and rsync -e ssh). */
export function sshArgs(f: SshdFixture, dir: string): string[] {
  const key = join(dir, 'client-key');
  writeFileSync(key, f.clientKey.privateKey);
  chmodSync(key, 0o600);
  return [
    '-p',
    String(f.port),
    '-i',
    key,
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-o',
    'BatchMode=yes',
  ];
}

export function sh(cmd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn('bash', ['-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd.slice(0, 80)}… exited ${code}: ${err}`)),
    );
  });
}

/** A deterministic pseudo-random generator (xorshift32), so every run builds the same tree. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

export function randomBytesFrom(next: () => number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i += 4)
    b.writeUInt32LE(Math.floor(next() * 0x100000000), Math.min(i, n - 4));
  return b;
}

export function ensureDir(p: string): void {
  mkdirSync(p, { recursive: true });
}

export function hasCommand(c: string): boolean {
  try {
    execFileSync('bash', ['-c', `command -v ${c}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The node's disk for a push bench: a fresh journaled ext4 on a loop device (what a rented
 * node's disk is), or, where one cannot be made (not root, no loop devices), the system
 * temp folder. This VM's own `/` is ext4 without a journal, where creating a file scans
 * every inode freed in the last minutes (ext4's `recently_deleted()`): a 5,000-file
 * extraction then takes 0.3 s or 5 s depending on what was deleted before it, whoever
 * extracts. `release()` unmounts it and removes the image.
 */
export function makeNodeDisk(): { path: string; label: string; release(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tender-node-disk-'));
  chmodSync(dir, 0o755); // sshd reads authorized_keys as the node's user, below here
  const image = join(dir, 'node-disk.img');
  const mount = join(dir, 'node-disk');
  try {
    execFileSync('truncate', ['-s', '6G', image]);
    // Inode tables and journal zeroed now, not by ext4lazyinit during the first pushes.
    execFileSync('mkfs.ext4', ['-q', '-F', '-E', 'lazy_itable_init=0,lazy_journal_init=0', image]);
    mkdirSync(mount);
    execFileSync('mount', ['-o', 'loop', image, mount]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return {
      path: tmpdir(),
      label: `the system temp folder (no loop ext4: ${(err as Error).message.split('\n')[0]})`,
      release: () => {},
    };
  }
  chmodSync(mount, 0o755); // sshd refuses keys under a world-writable folder
  return {
    path: mount,
    label: 'a fresh journaled ext4 (loop image)',
    release: () => {
      execFileSync('umount', [mount]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A training log as CSV from a seeded generator: ids, times, labels, paths, scores. */
export function csvDataset(bytes: number): Buffer {
  const next = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const labels = ['cat', 'dog', 'bird', 'horse', 'ship', 'truck', 'plane', 'frog', 'deer', 'car'];
  const splits = ['train', 'train', 'train', 'train', 'val', 'test'];
  const sizes = [224, 256, 320, 512];
  const lines = ['id,timestamp,split,label,image,width,height,score,loss,lr\n'];
  let n = lines[0]!.length;
  let t = Date.UTC(2024, 0, 1) / 1000;
  for (let id = 1; n < bytes; id++) {
    t += Math.floor(next() * 5);
    const label = pick(labels);
    const image = `images/${label}/${String(Math.floor(next() * 60000)).padStart(6, '0')}.jpg`;
    const line = `${id},${new Date(t * 1000).toISOString()},${pick(splits)},${label},${image},${pick(sizes)},${pick(sizes)},${next().toFixed(4)},${(next() * 3).toFixed(5)},0.0003\n`;
    lines.push(line);
    n += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

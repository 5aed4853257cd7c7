// Push compression chosen by what the link does, over real sshd: the node's sshd in a
// network namespace behind a veth pair shaped with tbf (test/helpers/shaped-link.ts), so
// an exec is granted in about a millisecond, as on a LAN, while the link carries 80 Mbit/s.
// The first push to that endpoint is compressed (the link is not known yet), measures the
// link and remembers it in the data folder; a remembered rate decides the next push, and
// what that push measures replaces it. Needs root, `ip` and `tc`.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_LINK_BYTES_PER_S } from '../../src-main/jobs/workspace/compress-pace';
import { LinkRates, linkRatesFile } from '../../src-main/jobs/workspace/link-rates';
import { scanWorkspace } from '../../src-main/jobs/workspace/scan';
import { syncWorkspace } from '../../src-main/jobs/workspace/sync';
import { loadAgentBundle } from '../../src-main/nodes/agent-bundle';
import type { AgentAddress } from '../../src-main/nodes/node-layout';
import { execCapture } from '../../src-main/transport/exec-helpers';
import { noteExecRoundTrip } from '../../src-main/transport/exec-round-trip';
import { connectSsh, type SshShell } from '../../src-main/transport/ssh-shell';
import { type ShapedLink, shapedLink } from '../helpers/shaped-link';
import { type SshdFixture, startSshd } from '../helpers/sshd';
import { snapshot, writeTree } from '../helpers/workspace-tree';

const MBIT = 80;
const MiB = 1024 * 1024;

const canShape = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('bash', ['-c', 'command -v ip && command -v tc'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let fixture: SshdFixture;
let link: ShapedLink;
let dir: string;
let bundleWord: string;
const shells: SshShell[] = [];

beforeAll(async () => {
  if (!canShape) return;
  dir = await mkdtemp(join(tmpdir(), 'tender-link-compression-'));
  fixture = await startSshd();
  link = await shapedLink(fixture, { dir, mbit: MBIT, rttMs: 0 });
  const shell = await connect('veth');
  const bundle = loadAgentBundle();
  bundleWord = `"$HOME"/.tender/cache/agent/tender-agent-${bundle.sha256.slice(0, 16)}.cjs`;
  await execCapture(shell, `mkdir -p "$HOME"/.tender/cache/agent && cat > ${bundleWord}`, {
    stdin: bundle.bytes,
  });
}, 60_000);

afterAll(async () => {
  for (const s of shells) await s.close();
  await link?.close();
  await fixture?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A new connection to the node: across the shaped veth, or to the fixture on loopback. */
async function connect(way: 'veth' | 'loopback'): Promise<SshShell> {
  const at =
    way === 'veth'
      ? { ...link.direct, fingerprint: link.hostKeyFingerprint }
      : { host: fixture.host, port: fixture.port, fingerprint: fixture.hostKeyFingerprint };
  const shell = await connectSsh(
    { host: at.host, port: at.port, user: fixture.user, privateKey: fixture.clientKey.privateKey },
    {
      hostKey: (info) => (info.fingerprint === at.fingerprint ? null : 'not the node'),
      signal: AbortSignal.timeout(30_000),
      deadlineMs: 20_000,
    },
  );
  shells.push(shell);
  return shell;
}

/** 8 MiB of CSV (compresses ~4×) beside 8 MiB of noise under a weights name, and code. */
async function workspace(): Promise<string> {
  const ws = join(dir, `ws-${workspaces++}`);
  const lines: string[] = ['id,label,score\n'];
  for (let i = 0, n = 0; n < 8 * MiB; i++) {
    const line = `${i},${['cat', 'dog', 'bird'][i % 3]},${((i * 7919) % 10007) / 10007}\n`;
    lines.push(line);
    n += line.length;
  }
  await writeTree(ws, {
    'train.py': 'import torch\n'.repeat(200),
    'data/train.csv': { content: Buffer.from(lines.join('')).subarray(0, 8 * MiB), mode: 0o644 },
    'ckpt/model.pt': { content: randomBytes(8 * MiB), mode: 0o644 },
  });
  return ws;
}
let workspaces = 0;

let nodes = 0;
function node(): { address: AgentAddress; dir: string } {
  const name = `lc-${process.pid}-${nodes++}`;
  return {
    address: { runtime: 'node', bundleWord, dirWord: `"$HOME"/.tender/nodes/${name}` },
    dir: join(fixture.home, '.tender', 'nodes', name),
  };
}

/** A first push (a fresh node folder) over a new connection, as each node of a run has. */
async function push(ws: string, way: 'veth' | 'loopback', home: string) {
  const shell = await connect(way);
  const n = node();
  const res = await syncWorkspace(shell, n.address, await scanWorkspace(ws, []), {
    linkRatesFile: linkRatesFile(home),
  });
  expect(await snapshot(join(n.dir, 'workspace'))).toEqual(await snapshot(ws));
  return { res, endpoint: shell.description, shell };
}

describe.skipIf(!canShape)('push compression chosen by the link, not its round trip', () => {
  it('compresses the first push over an 80 Mbit/s link with a LAN round trip, and remembers the link', async () => {
    const home = join(dir, 'home-first');
    const ws = await workspace();
    // Execs granted as on a LAN (what an idle machine shows across the veth: ~1 ms; a loaded
    // one takes longer, so it is noted here rather than left to the machine's load).
    noteExecRoundTrip(`${link.direct.host}:${link.direct.port}`, 1.5);
    const first = await push(ws, 'veth', home);
    expect(first.shell.execRoundTripMs()).toBeLessThanOrEqual(1.5);
    // …but the link is slow: the push was compressed (the CSV shrank, the noise did not).
    expect(first.res.compression).toMatchObject({ isEncoded: true, why: 'unmeasured' });
    expect(first.res.tarBytes).toBeGreaterThan(16 * MiB);
    // (How much depends on how busy this machine's cores are: the encoder sends a segment
    // raw where the link would wait for its compression.)
    expect(first.res.streamBytes).toBeLessThan(first.res.tarBytes! - MiB);
    // What the link took, measured as the push went, is kept for the endpoint, 0600.
    const measured = first.res.link!;
    expect(measured.bytesPerS).toBeGreaterThan(1e6);
    expect(measured.bytesPerS).toBeLessThan((MBIT * 1e6) / 8);
    expect(statSync(linkRatesFile(home)).mode & 0o777).toBe(0o600);
    expect(new LinkRates(linkRatesFile(home)).get(first.endpoint)).toEqual({
      bytesPerS: Math.round(measured.bytesPerS),
      isLinkBound: measured.isLinkBound,
    });

    // The next push to the endpoint (another process could read it) starts from that
    // measurement: compressed because it pays where the link was the limit, plain where
    // this machine's load was (the link then waited on the sender).
    const second = await push(ws, 'veth', home);
    expect(second.res.compression).toMatchObject(
      measured.isLinkBound
        ? { isEncoded: true, why: 'pays' }
        : { isEncoded: false, why: 'cpu_bound' },
    );
  }, 120_000);

  it('uses a remembered fast link to push plain, and corrects it from what that push measured', async () => {
    const home = join(dir, 'home-remembered');
    const ws = await workspace();
    const endpoint = `${fixture.user}@${link.direct.host}:${link.direct.port}`;
    // What an earlier push to this endpoint measured, say before the link got slower.
    new LinkRates(linkRatesFile(home)).set(endpoint, {
      bytesPerS: 2 * FAST_LINK_BYTES_PER_S,
      isLinkBound: true,
    });
    const plain = await push(ws, 'veth', home);
    expect(plain.endpoint).toBe(endpoint);
    expect(plain.res.compression).toMatchObject({ isEncoded: false, why: 'link_faster' });
    expect(plain.res.tarBytes).toBeUndefined();
    // It measured the link as it is now, which the next push goes by.
    const now = new LinkRates(linkRatesFile(home)).get(endpoint)!;
    expect(now.bytesPerS).toBeLessThan((MBIT * 1e6) / 8);
    const next = await push(ws, 'veth', home);
    expect(next.res.compression).toMatchObject(
      now.isLinkBound ? { isEncoded: true, why: 'pays' } : { isEncoded: false, why: 'cpu_bound' },
    );
  }, 120_000);

  it('over loopback, measures the link too, and the next push goes by that measurement', async () => {
    const home = join(dir, 'home-loopback');
    const ws = await workspace();
    const first = await push(ws, 'loopback', home);
    expect(first.res.compression?.why).toBe('unmeasured');
    const rate = new LinkRates(linkRatesFile(home)).get(first.endpoint);
    expect(rate?.bytesPerS).toBeGreaterThan(0);
    const next = await push(ws, 'loopback', home);
    // Plain where loopback outran compression, compressed where this machine's load made
    // it slower than that: either way decided by the measurement, no longer unknown.
    expect(next.res.compression?.why).toMatch(/^(pays|link_faster|cpu_bound)$/);
    expect(next.res.tarBytes === undefined).toBe(next.res.compression?.isEncoded === false);
  }, 120_000);
});

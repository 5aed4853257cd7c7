import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NodeShell } from '../../transport/node-shell';
import { LinkRates } from './link-rates';
import { mayCompress, planPush, pushLink, pushSaving } from './push-compression';

const dir = mkdtempSync(join(tmpdir(), 'tender-push-compression-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The bundle this "app" ships: what the gate compares a node's bundle name with.
const bundle = join(dir, 'tender-agent.cjs');
writeFileSync(bundle, 'console.log("agent")\n');
process.env.TENDER_AGENT_BUNDLE = bundle;
const own = `tender-agent-${createHash('sha256').update(Buffer.from('console.log("agent")\n')).digest('hex').slice(0, 16)}.cjs`;

const shell = (description: string, execMs?: number): NodeShell => ({
  description,
  exec: () => {
    throw new Error('not in this test');
  },
  execRoundTripMs: () => execMs,
  close: async () => {},
});
const at = (bundleWord: string) => ({
  runtime: 'node',
  bundleWord,
  dirWord: '"$HOME"/.tender/nodes/n',
});

describe('pushLink and mayCompress', () => {
  it.each([
    [
      'a remote node running this build',
      'root@10.0.0.1:22',
      `"$HOME"/.tender/cache/agent/${own}`,
      'auto',
      true,
    ],
    [
      'a remote node running another build',
      'root@10.0.0.1:22',
      '"$HOME"/.tender/cache/agent/tender-agent-0000000000000000.cjs',
      'auto',
      false,
    ],
    ['an agent not named by its hash', 'root@10.0.0.1:22', '/opt/tender-agent.cjs', 'auto', false],
    [
      'a local node: no link to spare bytes on',
      'local:/tmp/lease',
      `/home/me/.tender/local/cache/agent/${own}`,
      'auto',
      false,
    ],
    ['compression off', 'root@10.0.0.1:22', `"$HOME"/.tender/cache/agent/${own}`, 'off', false],
    ['compression on', 'root@10.0.0.1:22', `"$HOME"/.tender/cache/agent/${own}`, 'on', true],
    [
      'compression on, another build',
      'root@10.0.0.1:22',
      '"$HOME"/.tender/cache/agent/tender-agent-0000000000000000.cjs',
      'on',
      false,
    ],
  ] as const)('%s → %s', (_name, description, bundleWord, setting, may) => {
    expect(mayCompress(pushLink(shell(description), at(bundleWord), setting))).toBe(may);
  });

  it('takes the link rate remembered for the endpoint, not the exec round trip', () => {
    const rates = new LinkRates(undefined);
    rates.set('root@10.0.0.5:22', { bytesPerS: 11.8e6, isLinkBound: true });
    // Execs granted in 1.5 ms: a LAN's round trip, a 100 Mbit/s link all the same.
    const link = pushLink(shell('root@10.0.0.5:22', 1.5), at(`"$HOME"/${own}`), 'auto', rates);
    expect(link.link).toEqual({ bytesPerS: 11.8e6, isLinkBound: true });
    expect(pushLink(shell('root@10.0.0.6:22', 1.5), at(own), 'auto', rates).link).toBe(undefined);
  });
});

describe('planPush', () => {
  const csv = (n: number) => Buffer.from('id,label,score\n1,cat,0.25\n2,dog,0.5\n'.repeat(n));
  const files = (tree: Record<string, Buffer>) => {
    const root = mkdtempSync(join(dir, 'ws-'));
    for (const [path, body] of Object.entries(tree)) writeFileSync(join(root, path), body);
    return { root, list: Object.entries(tree).map(([path, b]) => ({ path, size: b.length })) };
  };

  it.each([
    ['text', { 'a.csv': csv(40_000) }, true],
    ['noise', { 'model.pt': randomBytes(2 << 20) }, false],
    ['text a tenth of noise', { 'a.csv': csv(6_000), 'model.pt': randomBytes(2 << 20) }, false],
    ['text beside noise', { 'a.csv': csv(40_000), 'model.pt': randomBytes(2 << 20) }, true],
    ['text named as a zip', { 'a.zip': csv(40_000) }, false],
    ['too little to bother', { 'a.csv': csv(500) }, false],
    ['nothing', {}, false],
  ] as const)('%s → %s', (_name, tree, isWorth) => {
    const { root, list } = files(tree);
    const link = pushLink(shell('root@10.0.0.1:22'), at(own), 'auto');
    expect(planPush(root, list, link).isEncoded).toBe(isWorth);
    // On a link measured faster than compression saves: plain, whatever the files.
    const fast = { ...link, link: { bytesPerS: 2e9, isLinkBound: true } };
    expect(planPush(root, list, fast)).toMatchObject({ isEncoded: false });
  });

  it('skips a file that vanished since the scan', () => {
    const { root, list } = files({ 'a.csv': csv(40_000) });
    const saving = pushSaving(root, [...list, { path: 'gone.csv', size: 1 << 20 }]);
    expect(saving.savedBytes).toBeGreaterThan(0);
  });
});

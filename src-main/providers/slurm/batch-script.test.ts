import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layoutFor } from '../../nodes/node-layout';
import { batchScript } from './batch-script';

describe('the batch script', () => {
  it('waits in the node folder the layout names, and runs what the bootstrap hands it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tender-batch-'));
    try {
      const label = 'tender-ab12cd34-r-1-node-0';
      // The folder the bootstrap's layout uses is the one the script watches.
      const layout = layoutFor(
        {
          kind: 'ssh',
          host: 'h',
          port: 22,
          user: 'u',
          authRef: 'tender',
          hostKeyScope: 's',
          knownHosts: false,
          slurmJobId: '1',
        },
        label,
        home,
      );
      expect(layout.dirWord).toBe(`"$HOME"/.tender/nodes/${label}`);
      expect(layout.holder).toBe(true);
      const script = join(home, 'job.sh');
      writeFileSync(script, batchScript(label));
      const p = spawn('bash', [script], {
        env: { ...process.env, HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      p.stdout.on('data', (d: Buffer) => (out += d));
      const dir = join(home, '.tender', 'nodes', label);
      await new Promise((r) => setTimeout(r, 300));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'holder.cmd'), 'exec echo "agent here $$"\n');
      const code = await new Promise<number | null>((r) => p.once('exit', r));
      expect(code).toBe(0);
      expect(out).toBe(`agent here ${p.pid}\n`); // exec: the allocation's own process
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses what is not a label, and is valid bash', () => {
    expect(() => batchScript('x; rm -rf /')).toThrow('not a lease label');
    execFileSync('bash', ['-n', '-c', batchScript('tender-a-b-node-0')]);
  });
});

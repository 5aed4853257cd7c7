// The built agent's daemon as a real process whose PATH starts with a fake nvidia-smi
// (fake-nvidia-smi.ts: nvidia-smi's real CSV shapes), sampling fast: for the tests of the
// agent's GPU samples and of its GPU idle rule. What a test starts is stopped and removed
// after it.
import { mkdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { GpuIdleRule } from '../../src-agent/wire/gpu-idle';
import type { StartOutput } from '../../src-agent/wire/protocol';
import { AttachClient, markedJson, runAgent } from './agent-bundle';
import { useAgentCleanup } from './agent-cleanup';
import { writeFakeNvidiaSmi } from './fake-nvidia-smi';

export const GPU_SAMPLE_MS = 150; // a test's sampling; nodes sample every 5 s

export interface GpuAgent {
  dir: string;
  /** The fake's folder: `<bin>/vary` makes every reading differ (fake-nvidia-smi.ts). */
  bin: string;
  /** What the fake's usage query prints: rewrite it to change the GPUs' readings. */
  usage: string;
  client: AttachClient;
}

export interface GpuAgentOptions {
  /** What the sampler's usage query reads. */
  usage: string;
  /** false: a node without nvidia-smi at all. */
  gpu?: boolean;
  /** The job's GPU idle rule, given in `configure`. */
  gpuIdle?: GpuIdleRule;
}

/** Registers the cleanup for one test file; each call of the result starts a daemon (its
 *  job configured, its log subscribed from the first record). */
export function useGpuAgents(prefix: string): (opts: GpuAgentOptions) => Promise<GpuAgent> {
  const { roots, nodeDirs, clients } = useAgentCleanup();
  return async (opts) => {
    const root = await mkdtemp(join(tmpdir(), prefix));
    roots.push(root);
    const dir = join(root, 'node');
    const bin = join(root, 'bin');
    if (opts.gpu === false) mkdirSync(bin, { recursive: true });
    else writeFakeNvidiaSmi(bin, opts.usage);
    nodeDirs.push(dir);
    const res = await runAgent(['start', '--dir', dir], undefined, {
      PATH: `${bin}:${process.env.PATH}`,
      TENDER_AGENT_GPU_SAMPLE_MS: String(GPU_SAMPLE_MS),
    });
    expect(res.code, res.stderr).toBe(0);
    markedJson<StartOutput>(res.stdout);
    const client = new AttachClient(dir);
    clients.push(client);
    await client.request('configure', {
      jobId: 'job-1',
      attempt: 0,
      ...(opts.gpuIdle ? { gpuIdle: opts.gpuIdle } : {}),
    });
    await client.request('subscribe', { fromSeq: 1 });
    return { dir, bin, usage: join(bin, 'usage.csv'), client };
  };
}

// What this node offers, as flat keys. Each probe that fails leaves its keys out.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { Capabilities } from '../../wire/protocol';
import { type GpuInfo, gpuCapabilities, parseCudaVersion, parseGpuQuery } from './nvidia-smi';

const PROBE_TIMEOUT_MS = 15_000; // nvidia-smi takes seconds on a cold driver; hello waits for it

export interface GpuProbe {
  gpus: GpuInfo[];
  cuda: string | undefined;
}

/** Runs nvidia-smi twice (the query, then the banner for the CUDA version). */
export async function probeGpus(): Promise<GpuProbe> {
  const query = await run('nvidia-smi', [
    '--query-gpu=index,name,memory.total,driver_version',
    '--format=csv,noheader,nounits',
  ]);
  const gpus = query === undefined ? [] : parseGpuQuery(query);
  if (gpus.length === 0) return { gpus, cuda: undefined };
  const banner = await run('nvidia-smi', []);
  return { gpus, cuda: banner === undefined ? undefined : parseCudaVersion(banner) };
}

/** `python.version` (the capability key a job's `python.version >= X` constraint reads,
 *  docs/agent-protocol.md "Capabilities") from `python3 --version`, else `python`;
 *  absent where neither runs. */
export async function probeRuntimes(): Promise<Capabilities> {
  for (const cmd of ['python3', 'python']) {
    const out = await run(cmd, ['--version']);
    const version = out === undefined ? null : parsePythonVersion(out);
    if (version) return { 'python.version': version };
  }
  return {};
}

/** "Python 3.12.1" → "3.12.1" (null: not that). */
export function parsePythonVersion(text: string): string | null {
  return /^Python (\d+\.\d+(?:\.\d+)?)/m.exec(text.trim())?.[1] ?? null;
}

/** The host facts plus the GPU facts of an earlier probe; `disk.avail` is read now. */
export function capabilities(dir: string, gpu: GpuProbe): Capabilities {
  const caps: Capabilities = {
    os: os.platform(),
    arch: os.arch(),
    'node.version': process.version,
  };
  attempt(() => (caps.hostname = os.hostname()));
  attempt(() => (caps['cpu.cores'] = os.availableParallelism?.() ?? os.cpus().length));
  attempt(() => (caps['mem.total'] = os.totalmem()));
  attempt(() => {
    // fs.statfsSync exists from Node 18.15; older runtimes simply omit the key.
    const statfs = (fs as { statfsSync?: (p: string) => { bavail: number; bsize: number } })
      .statfsSync;
    if (statfs) {
      const s = statfs(dir);
      caps['disk.avail'] = s.bavail * s.bsize;
    }
  });
  return { ...caps, ...gpuCapabilities(gpu.gpus, gpu.cuda) };
}

function attempt(probe: () => unknown): void {
  try {
    probe();
  } catch {
    // a failing probe omits its keys
  }
}

function run(cmd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout) =>
      resolve(err ? undefined : stdout),
    );
  });
}

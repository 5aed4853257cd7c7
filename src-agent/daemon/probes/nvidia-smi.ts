// Pure parsers of nvidia-smi output. Anything unexpected (a driver failure message, [N/A]
// fields) yields fewer facts, never an exception.

export interface GpuInfo {
  index: number;
  name: string;
  /** Bytes; undefined when nvidia-smi printed [N/A]. */
  vram: number | undefined;
  driver: string;
}

const MIB = 1024 * 1024;

/** Parses `nvidia-smi --query-gpu=index,name,memory.total,driver_version
 *  --format=csv,noheader,nounits`. Lines that do not fit the shape are skipped. */
export function parseGpuQuery(csv: string): GpuInfo[] {
  const gpus: GpuInfo[] = [];
  for (const raw of csv.split(/\r?\n/)) {
    const fields = raw.split(',').map((f) => f.trim());
    if (fields.length < 4) continue;
    const index = Number(fields[0]);
    // The name is everything between the first and the last two fields.
    const name = fields.slice(1, -2).join(', ');
    const mib = Number(fields.at(-2));
    const driver = fields.at(-1) as string;
    if (!Number.isInteger(index) || fields[0] === '' || name === '') continue;
    if (!/^\d+(\.\d+)*$/.test(driver)) continue;
    gpus.push({
      index,
      name,
      vram: Number.isFinite(mib) && mib > 0 ? mib * MIB : undefined,
      driver,
    });
  }
  return gpus.sort((a, b) => a.index - b.index);
}

/** The `CUDA Version: 12.2` of plain `nvidia-smi`'s banner. */
export function parseCudaVersion(text: string): string | undefined {
  return /CUDA Version:\s*(\d+\.\d+)/.exec(text)?.[1];
}

/** The `gpu.*` capability keys (docs/agent-protocol.md, "Capabilities"); {} for no GPUs. */
export function gpuCapabilities(
  gpus: GpuInfo[],
  cuda: string | undefined,
): Record<string, string | number> {
  if (gpus.length === 0) return {};
  const caps: Record<string, string | number> = {
    'gpu.count': gpus.length,
    'gpu.vendor': 'nvidia',
    'gpu.model': [...new Set(gpus.map((g) => g.name))].join(','),
  };
  const vrams = gpus.map((g) => g.vram).filter((v): v is number => v !== undefined);
  if (vrams.length > 0) {
    caps['gpu.vram'] = vrams.reduce((a, b) => a + b, 0);
    caps['gpu.vram.max'] = Math.max(...vrams);
  }
  gpus.forEach((g, i) => {
    caps[`gpu.${i}.model`] = g.name;
    if (g.vram !== undefined) caps[`gpu.${i}.vram`] = g.vram;
  });
  caps['gpu.driver'] = (gpus[0] as GpuInfo).driver;
  if (cuda) caps['gpu.cuda'] = cuda;
  return caps;
}

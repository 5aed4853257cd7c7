// Pure parser of the sampler's nvidia-smi query. Anything unexpected (a driver failure
// message, another query's shape) yields no reading, never an exception.
import type { GpuReading } from '../../wire/gpu-sample';

/** What the sampler asks nvidia-smi; `parseGpuUsage` reads its answer. */
export const GPU_USAGE_ARGS = [
  '--query-gpu=index,utilization.gpu,memory.used,memory.total',
  '--format=csv,noheader,nounits',
];

/** Parses `nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total
 *  --format=csv,noheader,nounits`: one `0, 87, 31245, 81920` line per GPU (percent, MiB).
 *  `[N/A]` and `[Not Supported]` read as null (a MIG-enabled GPU has no utilisation);
 *  lines of any other shape are skipped. Sorted by index. */
export function parseGpuUsage(csv: string): GpuReading[] {
  const out: GpuReading[] = [];
  for (const raw of csv.split(/\r?\n/)) {
    const fields = raw.split(',').map((f) => f.trim());
    if (fields.length !== 4 || !/^\d+$/.test(fields[0]!)) continue;
    const [util, memUsed, memTotal] = fields.slice(1).map(reading);
    if (util === undefined || memUsed === undefined || memTotal === undefined) continue;
    if (util !== null && util > 100) continue;
    out.push({ i: Number(fields[0]), util, memUsed, memTotal });
  }
  return out.sort((a, b) => a.i - b.i);
}

/** A number, null for what nvidia-smi cannot read, undefined for a field of another shape. */
function reading(field: string): number | null | undefined {
  if (/^\[(N\/A|Not Supported|Unknown Error)\]$/i.test(field)) return null;
  if (!/^\d+(\.\d+)?$/.test(field)) return undefined;
  return Number(field);
}

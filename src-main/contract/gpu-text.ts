import type { NodeGpu } from './node-view';

const MIB_PER_GB = 1024; // nvidia-smi's MiB; "80 GB" is how an A100 80GB is sold

/** "GPU 87% · 31/80 GB" (with several GPUs: "8× GPU 86% · 498/637 GB", the mean
 *  utilisation and the summed memory); the node pane, the ledger and `tender status`. */
export function gpuText(gpu: NodeGpu): string {
  const utils = gpu.gpus.flatMap((g) => (g.util === null ? [] : [g.util]));
  const util =
    utils.length === 0 ? 'n/a' : `${Math.round(utils.reduce((a, b) => a + b, 0) / utils.length)}%`;
  const count = gpu.gpus.length > 1 ? `${gpu.gpus.length}× ` : '';
  const mem = memText(gpu.gpus);
  return `${count}GPU ${util}${mem ? ` · ${mem}` : ''}`;
}

/** One line per GPU: "GPU 1: n/a · 24/80 GB" (a tooltip). */
export function gpuLines(gpu: NodeGpu): string[] {
  return gpu.gpus.map((g) => {
    const mem = memText([g]);
    return `GPU ${g.index}: ${g.util === null ? 'n/a' : `${g.util}%`}${mem ? ` · ${mem}` : ''}`;
  });
}

/** "31/80 GB" over the GPUs whose memory reads; null when none does. */
function memText(gpus: NodeGpu['gpus']): string | null {
  const read = gpus.filter((g) => g.memUsedMiB !== null && g.memTotalMiB !== null);
  if (read.length === 0) return null;
  const used = read.reduce((a, g) => a + g.memUsedMiB!, 0) / MIB_PER_GB;
  const total = read.reduce((a, g) => a + g.memTotalMiB!, 0) / MIB_PER_GB;
  return `${gb(used)}/${gb(total)} GB`;
}

function gb(v: number): string {
  return v >= 10 || v === 0 ? v.toFixed(0) : v.toFixed(1);
}

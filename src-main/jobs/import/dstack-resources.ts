import type { JobDraft } from './draft';
import { parseDstackGpu, parseMemory, parseRange, type Range } from './dstack-gpu';
import { pickGpu } from './gpu-pick';
import { keyPath, type Outcomes } from './key-outcomes';
import { isDict } from './values';

const show = (r: Range, unit = '') =>
  r.min === r.max
    ? `${r.min}${unit}`
    : `${r.min ?? ''}${r.min === undefined ? '' : unit}..${r.max ?? ''}${r.max === undefined ? '' : unit}`;

/** dstack `resources`: gpu, cpu, memory, disk, shm_size. */
export function dstackResources(res: unknown, draft: JobDraft, out: Outcomes): void {
  if (!isDict(res)) {
    out.refused('resources', 'resources is not a mapping', 'write resources: with gpu: A100:8');
    return;
  }
  for (const [key, value] of Object.entries(res)) {
    const at = keyPath('resources', key);
    switch (key) {
      case 'gpu':
        gpu(value, at, draft, out);
        break;
      case 'cpu': {
        const spec = isDict(value)
          ? value.count
          : typeof value === 'string'
            ? value.split(':').pop()
            : value;
        const r = parseRange(spec, (t) => (/^\d+$/.test(t) ? Number(t) : undefined));
        if ('error' in r) out.refused(at, `cpu: ${r.error}`, 'write cpu: 8..');
        else floor(at, r, 'cpu.cores >= ', '', draft, out, 'the most cores');
        break;
      }
      case 'memory': {
        const r = parseRange(value, parseMemory);
        if ('error' in r) out.refused(at, `memory: ${r.error}`, 'write memory: 32GB..');
        else floor(at, r, 'mem.total >= ', 'GB', draft, out, 'a memory ceiling');
        break;
      }
      case 'disk': {
        const r = parseRange(isDict(value) ? value.size : value, parseMemory);
        if ('error' in r) out.refused(at, `disk: ${r.error}`, 'write disk: 200GB..');
        else {
          const gb = Math.ceil(r.min ?? r.max ?? 1);
          if (gb > 8192)
            out.refused(
              at,
              `disk ${show(r, 'GB')} is above Tender's 8192 GB`,
              'ask for at most 8192GB',
            );
          else {
            draft.pool.disk_gb = gb;
            if (r.min !== r.max)
              out.warned(at, `a range: Tender rents ${gb} GB`, `pool.disk_gb = ${gb}`);
            else out.mapped(at, `pool.disk_gb = ${gb}`);
          }
        }
        break;
      }
      case 'shm_size':
        out.warned(
          at,
          "Tender's nodes are machines, not containers it sizes: /dev/shm is the machine's",
        );
        break;
      default:
        out.warned(at, 'not a dstack resources key Tender knows; left out');
    }
  }
}

/** A lower bound checked on each node when it joins; a ceiling is not a Tender constraint
 *  worth failing a boot over. */
function floor(
  at: string,
  r: Range,
  prefix: string,
  unit: string,
  draft: JobDraft,
  out: Outcomes,
  ceiling: string,
): void {
  if (r.min === undefined || r.min === 0) {
    out.warned(at, `only ${ceiling} is given; Tender does not cap it`);
    return;
  }
  const c = `${prefix}${r.min}${unit}`;
  draft.job.constraints.push(c);
  const why: string[] = [];
  if (r.max !== undefined)
    why.push(
      `${r.min === r.max ? 'exactly N becomes at least N' : `the upper bound ${r.max}${unit} is not checked`}`,
    );
  if (unit === 'GB')
    why.push(`checked as ${r.min}·10⁹ bytes (a node reports a little under its nominal GiB)`);
  if (why.length > 0) out.warned(at, why.join('; '), `constraint ${c}`);
  else out.mapped(at, `constraint ${c}`);
}

function gpu(value: unknown, at: string, draft: JobDraft, out: Outcomes): void {
  const spec = parseDstackGpu(value);
  if ('error' in spec)
    return out.refused(
      at,
      spec.error,
      'write gpu: A100:8, gpu: 24GB.., or gpu: {name: [A100, H100], count: 2}',
    );
  if (
    spec.vendor === 'tpu' ||
    spec.vendor === 'google' ||
    spec.names.some((n) => /^(tpu-|v\d+[a-z]*-\d+$)/i.test(n))
  )
    return out.refused(
      at,
      'a TPU: no Tender marketplace rents TPUs',
      'ask for GPUs (gpu: A100:8 or gpu: 80GB)',
    );
  const count = spec.count.min ?? spec.count.max ?? 1;
  if (count === 0) return out.mapped(at, 'no GPU');
  const why: string[] = [];
  if (spec.count.min !== spec.count.max)
    why.push(`a count of ${show(spec.count)}: Tender rents exactly ${count}`);
  if (spec.memory?.min !== undefined) draft.pool.min_vram_gb = spec.memory.min;
  if (spec.memory?.max !== undefined && spec.memory.max !== spec.memory.min)
    why.push(`the VRAM ceiling ${spec.memory.max}GB is not checked`);
  if (spec.totalMemory) why.push('total_memory is not checked (min_vram_gb is per GPU)');
  if (spec.computeCapability) why.push('compute_capability is not checked');
  if (spec.names.length > 0) {
    pickGpu(
      spec.names.map((name) => ({ name, count, from: at })),
      at,
      draft,
      out,
    );
    if (why.length > 0) out.warned(at, why.join('; '));
    return;
  }
  draft.pool.gpu_count = count;
  const vram =
    draft.pool.min_vram_gb === undefined ? '' : `, min_vram_gb = ${draft.pool.min_vram_gb}`;
  const to = `pool.gpu_count = ${count}${vram} (any GPU model)`;
  if (why.length > 0) out.warned(at, why.join('; '), to);
  else out.mapped(at, to);
}

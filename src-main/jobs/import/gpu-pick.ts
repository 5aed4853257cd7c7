import type { JobDraft } from './draft';
import { GPU_EXAMPLES, tenderGpu } from './gpu-catalog';
import type { Outcomes } from './key-outcomes';

/** One GPU a task would take, in the order the task prefers them. */
export interface GpuOption {
  name: string;
  count: number;
  /** Where it was written, for the note. */
  from: string;
}

/**
 * Sets the pool's `gpu`/`gpu_count` from the first option a Tender marketplace sells; the
 * others stay, in order, as a comment under `[pool]` (a pool rents one GPU type). Options
 * no marketplace sells are named; when none is sold the key is refused.
 */
export function pickGpu(options: GpuOption[], at: string, draft: JobDraft, out: Outcomes): void {
  const sold = options.map((o) => ({ o, t: tenderGpu(o.name) }));
  const first = sold.find((s) => s.t !== undefined);
  if (!first || !first.t) {
    const names = [...new Set(options.map((o) => o.name))].join(', ');
    out.refused(
      at,
      `no Tender marketplace (vastai, runpod, lambda) sells ${names}`,
      `name a GPU they sell (${GPU_EXAMPLES}), or remove it to run without a GPU`,
    );
    return;
  }
  const { o, t } = first;
  const count = Math.max(1, Math.ceil(o.count));
  draft.pool.gpu = t.gpu;
  draft.pool.gpu_count = count;
  if (t.minVramGb !== undefined) draft.pool.min_vram_gb = t.minVramGb;
  const vram = t.minVramGb === undefined ? '' : `, min_vram_gb = ${t.minVramGb}`;
  const others = sold.filter((s) => s !== first);
  const unsold = others.filter((s) => !s.t).map((s) => s.o.name);
  const kept = others.filter((s) => s.t).map((s) => `${s.o.name}:${s.o.count}`);
  if (kept.length > 0)
    draft.poolNotes.push(
      `alternatives, in the order written (a pool rents one GPU type): ${kept.join(', ')}`,
    );
  const why: string[] = [];
  if (count !== o.count)
    why.push(`${o.count} GPUs rounded up to ${count}: Tender rents whole GPUs`);
  if (kept.length > 0)
    why.push(
      `a pool rents one GPU type; the alternatives ${kept.join(', ')} are kept in order as a comment under [pool]`,
    );
  if (unsold.length > 0) why.push(`no Tender marketplace sells ${unsold.join(', ')}`);
  const to = `pool.gpu = "${t.gpu}", gpu_count = ${count}${vram}`;
  if (why.length > 0) out.warned(at, why.join('; '), to);
  else out.mapped(at, to);
}

import type { NodeView } from '../../../src-main/contract';

type Caps = NonNullable<NodeView['capabilities']>;

const GIB = 1024 ** 3;

function gib(bytes: number): string {
  const v = bytes / GIB;
  return `${v >= 10 ? v.toFixed(0) : v.toFixed(1)} GiB`;
}

const num = (v: string | number | undefined) =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;

/** What a node's agent reported, in two short lines: the GPUs, then CPU, memory and disk.
 *  Null before the agent joined (nothing was probed yet). */
export function hardwareSummary(caps: Caps | null): { gpu: string | null; host: string } | null {
  if (!caps) return null;
  const count = num(caps['gpu.count']);
  const model = typeof caps['gpu.model'] === 'string' ? caps['gpu.model'] : null;
  const vramMax = num(caps['gpu.vram.max']);
  let gpu: string | null = null;
  if (model && count > 0) {
    const names = model.split(',').join(' + ');
    gpu = `${count > 1 ? `${count}× ` : ''}${names}`;
    if (vramMax > 0) gpu += ` · ${gib(vramMax)}`;
  }
  const host: string[] = [];
  const cores = num(caps['cpu.cores']);
  if (cores > 0) host.push(`${cores} CPU${cores === 1 ? '' : 's'}`);
  const mem = num(caps['mem.total']);
  if (mem > 0) host.push(`${gib(mem)} RAM`);
  const disk = num(caps['disk.avail']);
  if (disk > 0) host.push(`${gib(disk)} free`);
  return { gpu, host: host.join(' · ') };
}

/** Capabilities sorted for the detail panel: GPUs first, then host facts. */
export function capabilityEntries(caps: Caps | null): [string, string][] {
  if (!caps) return [];
  const shown = (k: string, v: string | number): string =>
    typeof v === 'number' && /(^mem\.total|^disk\.avail|vram)/.test(k) ? gib(v) : String(v);
  return Object.entries(caps)
    .sort(
      ([a], [b]) => Number(b.startsWith('gpu')) - Number(a.startsWith('gpu')) || a.localeCompare(b),
    )
    .map(([k, v]) => [k, shown(k, v)]);
}

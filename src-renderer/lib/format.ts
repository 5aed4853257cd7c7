/** Display formatting, one place: money, durations, sizes. Pure, unit tested. */

export function money(dollars: number | null | undefined, digits = 2): string {
  if (dollars === null || dollars === undefined || !Number.isFinite(dollars)) return '—';
  if (dollars !== 0 && Math.abs(dollars) < 0.01 && digits <= 2) return `$${dollars.toFixed(3)}`;
  return `$${dollars.toFixed(digits)}`;
}

export function perHour(dollars: number | null | undefined): string {
  return dollars === null || dollars === undefined ? '—' : `${money(dollars, 3)}/h`;
}

/** 0 s, 42 s, 3 m 07 s, 2 h 05 m, 3 d 4 h */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${String(m % 60).padStart(2, '0')} m`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

export function clockTime(ts: number): string {
  const d = new Date(ts);
  return [d.getHours(), d.getMinutes(), d.getSeconds()]
    .map((x) => String(x).padStart(2, '0'))
    .join(':');
}

/** The run of a node id: `r-k3x9a2mf/node-0` → `r-k3x9a2mf`. */
export function runOf(nodeId: string): string {
  const i = nodeId.indexOf('/');
  return i === -1 ? nodeId : nodeId.slice(0, i);
}

/** "a run id" → the short form people read: r-k3x9a2mf stays; node ids lose the run. */
export function logicalOf(nodeId: string): string {
  const i = nodeId.indexOf('/');
  return i === -1 ? nodeId : nodeId.slice(i + 1);
}

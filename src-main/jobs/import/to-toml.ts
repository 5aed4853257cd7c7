import { stringify } from 'smol-toml';
import type { JobDraft } from './draft';

/**
 * The draft as job file text. Scalars are escaped by smol-toml; a multi-line command is
 * written as a literal `'''` block when that is exact (no `'''` inside, no control
 * characters but tab), so the file reads like the script it holds.
 */
export function draftToToml(draft: JobDraft, header: string[]): string {
  const out: string[] = header.map((l) => `# ${l}`);
  out.push('', '[job]');
  const { job, pool, policy, recovery } = draft;
  line(out, 'name', job.name);
  if (job.setup !== undefined) line(out, 'setup', job.setup);
  line(out, 'run', job.run);
  if (job.workspace) out.push(`workspace = ${inlineTable(job.workspace)}`);
  if (Object.keys(job.env).length > 0) out.push(`env = ${inlineTable(job.env)}`);
  if (job.constraints.length > 0) line(out, 'constraints', job.constraints);
  if (job.ports.length > 0) line(out, 'ports', job.ports);
  if (job.distributed !== undefined) line(out, 'distributed', job.distributed);
  if (job.stop !== undefined) line(out, 'stop', job.stop);
  table(out, 'pool', inOrder(pool, POOL_ORDER), draft.poolNotes);
  table(out, 'policy', policy);
  if (recovery) table(out, 'recovery', recovery);
  return out.join('\n') + '\n';
}

const POOL_ORDER = [
  'provider',
  'count',
  'gpu',
  'gpu_count',
  'min_vram_gb',
  'interruptible',
  'image',
  'disk_gb',
  'region',
  'max_price',
];

function inOrder(values: object, order: readonly string[]): Record<string, unknown> {
  const v = values as Record<string, unknown>;
  const keys = [
    ...order.filter((k) => k in v),
    ...Object.keys(v).filter((k) => !order.includes(k)),
  ];
  return Object.fromEntries(keys.map((k) => [k, v[k]]));
}

function table(out: string[], name: string, values: object, notes: string[] = []): void {
  const entries = Object.entries(values).filter(([, v]) => v !== undefined);
  if (entries.length === 0 && notes.length === 0) return;
  out.push('', `[${name}]`);
  for (const [k, v] of entries) line(out, k, v);
  for (const n of notes) out.push(`# ${n}`);
}

function line(out: string[], key: string, value: unknown): void {
  out.push(`${tomlKey(key)} = ${tomlValue(value)}`);
}

export function tomlValue(value: unknown): string {
  if (typeof value === 'string' && value.includes('\n') && isLiteralSafe(value))
    return `'''\n${value}'''`;
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return inlineTable(value);
  return basic(value);
}

/** One value as smol-toml writes it (a string as a one-line basic string). */
function basic(value: unknown): string {
  return stringify({ v: value }).replace(/^v = /, '').trimEnd();
}

function inlineTable(value: object): string {
  const parts = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${tomlKey(k)} = ${typeof v === 'string' ? basic(v) : tomlValue(v)}`);
  return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : basic(key);
}

/** A literal block reads back as exactly `value`: a newline right after `'''` is trimmed,
 *  and a trailing quote would run into the closing delimiter. */
// Control characters other than tab and newline cannot appear in a literal string.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

function isLiteralSafe(value: string): boolean {
  return (
    !value.includes("'''") && !CONTROL.test(value) && !value.endsWith("'") && value.endsWith('\n')
  );
}

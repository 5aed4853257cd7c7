// Capability constraints (the task specification's "Task Constraints"): `<key> <op> <value>`, every one
// must hold against a node's capabilities (the flat keys its agent probes: `gpu.vram`,
// `mem.total`, `os`, `gpu.cuda`, …). Integers take byte suffixes (16GB = 16·10^9 bytes,
// 16GiB = 16·2^30), versions compare segment by segment with missing segments 0, other
// strings compare as text; a key the node does not have fails. Pure.
/** A node's probed capabilities (the agent's `Capabilities`): flat keys to values. */
export type CapabilityMap = Record<string, string | number>;

export type ConstraintOp = '==' | '!=' | '>=' | '<=' | '>' | '<';

export interface Constraint {
  /** As written. */
  text: string;
  key: string;
  op: ConstraintOp;
  value: string;
}

/** Keys people write that the probes name otherwise. */
const ALIASES: Record<string, string> = { cuda: 'gpu.cuda', vram: 'gpu.vram', ram: 'mem.total' };

const OPS: ConstraintOp[] = ['==', '!=', '>=', '<=', '>', '<']; // two-character ones first
const KEY = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;
// GB is 10^9 bytes, GiB 2^30: a "24 GB" card reports 24564 MiB, which `>= 24GB` must take
// (it is 23.99 GiB). Single letters are binary, as docker's --memory reads them.
const UNITS: Record<string, number> = {
  '': 1,
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  K: 1024,
  KIB: 1024,
  M: 1024 ** 2,
  MIB: 1024 ** 2,
  G: 1024 ** 3,
  GIB: 1024 ** 3,
  T: 1024 ** 4,
  TIB: 1024 ** 4,
};

export class ConstraintSyntaxError extends Error {
  constructor(
    readonly text: string,
    why: string,
  ) {
    super(`constraint ${JSON.stringify(text)}: ${why}`);
  }
}

/** Parses one expression; throws ConstraintSyntaxError naming what is wrong and the form. */
export function parseConstraint(text: string): Constraint {
  const form = 'write it as <key> <op> <value>, e.g. "gpu.vram >= 24GB" (ops: == != >= <= > <)';
  const at = OPS.map((op) => ({ op, i: text.indexOf(op) }))
    .filter((x) => x.i > 0)
    .sort((a, b) => a.i - b.i || b.op.length - a.op.length)[0];
  if (!at) throw new ConstraintSyntaxError(text, `no operator; ${form}`);
  const key = text.slice(0, at.i).trim();
  const value = text.slice(at.i + at.op.length).trim();
  if (!KEY.test(key))
    throw new ConstraintSyntaxError(text, `"${key}" is not a capability key; ${form}`);
  if (value === '' || /^[=<>!]/.test(value))
    throw new ConstraintSyntaxError(text, `no value after ${at.op}; ${form}`);
  return { text, key: ALIASES[key] ?? key, op: at.op, value };
}

/** An integer with an optional byte suffix (16GB), or null. */
export function parseQuantity(v: string | number): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(v);
  if (!m) return null;
  const unit = UNITS[m[2]!.toUpperCase()];
  if (unit === undefined) return null;
  if (unit === 1 && m[1]!.includes('.')) return null; // a version, not a count
  return Number(m[1]) * unit;
}

/** `3.12.1` (or `v20.11.0`) as its segments, or null. */
export function parseVersion(v: string | number): number[] | null {
  const m = /^v?(\d+(?:\.\d+)*)$/.exec(String(v).trim());
  return m ? m[1]!.split('.').map(Number) : null;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** -1, 0 or 1: the node's value against the constraint's, numbers as numbers, versions
 *  part by part, anything else as text. */
function compare(have: string | number, want: string): { order: number; kind: string } {
  const qa = parseQuantity(have);
  const qb = parseQuantity(want);
  if (qa !== null && qb !== null) return { order: Math.sign(qa - qb), kind: 'number' };
  const va = parseVersion(have);
  const vb = parseVersion(want);
  if (va && vb) return { order: compareVersions(va, vb), kind: 'version' };
  const sa = String(have);
  return { order: sa < want ? -1 : sa > want ? 1 : 0, kind: 'text' };
}

/** Whether the capabilities satisfy the constraint (a missing key never does). */
export function satisfies(c: Constraint, caps: CapabilityMap): boolean {
  const have = caps[c.key];
  if (have === undefined) return false;
  const { order, kind } = compare(have, c.value);
  switch (c.op) {
    case '==':
      return kind === 'text' ? String(have) === c.value : order === 0;
    case '!=':
      return kind === 'text' ? String(have) !== c.value : order !== 0;
    case '>=':
      return order >= 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
  }
}

/** The constraints a node fails, each with what it has, for a message. */
export function unmet(
  constraints: readonly Constraint[],
  caps: CapabilityMap,
): { constraint: Constraint; has: string }[] {
  return constraints
    .filter((c) => !satisfies(c, caps))
    .map((c) => ({ constraint: c, has: caps[c.key] === undefined ? 'none' : String(caps[c.key]) }));
}

/** "gpu.vram >= 24GB (the node has 8589934592)" for each, joined. */
export function unmetText(failed: ReturnType<typeof unmet>): string {
  return failed
    .map((f) =>
      f.has === 'none'
        ? `${f.constraint.text} (the node has no ${f.constraint.key})`
        : `${f.constraint.text} (the node has ${f.constraint.key} = ${f.has})`,
    )
    .join('; ');
}

import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // no l/1/o/0: ids get read aloud and typed

export function randomId(length: number, random: (n: number) => Buffer = randomBytes): string {
  const bytes = random(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

export function newRunId(random?: (n: number) => Buffer): string {
  return `r-${randomId(8, random)}`;
}

/** Provider label for a node's lease: `tender-<install>-<run>-<node>`. Only `[a-z0-9-]`. */
export function leaseLabel(installId: string, runId: string, logicalId: string): string {
  return `${labelPrefix(installId)}${runId.replace(/^r-/, '')}-${logicalId}`;
}

export function labelPrefix(installId: string): string {
  return `tender-${installId}-`;
}

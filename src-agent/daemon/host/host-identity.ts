// What machine this daemon was declared as: the host declaration it was launched with
// (kept in D/host.json, so a daemon restarted without one advertises the same key).
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../atomic-file';
import { hostKey, type HostKeyInput } from '../../wire/host-key';
import type { NodePaths } from '../../wire/paths';

export interface HostIdentity {
  declaration: HostKeyInput | undefined;
  /** `hk1_…` recomputed here from the declaration (the app compares strings); null: none. */
  key: string | null;
}

export function loadHostIdentity(paths: NodePaths, given: HostKeyInput | undefined): HostIdentity {
  if (given) writeFileAtomic(paths.hostJson, `${JSON.stringify(given)}\n`);
  const declaration = given ?? readDeclaration(paths.hostJson);
  return { declaration, key: declaration ? hostKey(declaration) : null };
}

function readDeclaration(path: string): HostKeyInput | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as HostKeyInput;
  } catch {
    return undefined; // a torn file: no key rather than a wrong one
  }
}

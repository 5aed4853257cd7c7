// The Vast.ai per-instance credential a container carries: CONTAINER_ID and
// CONTAINER_API_KEY (a key allowed to act on this one instance only).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface InstanceCredential {
  containerId: string;
  apiKey: string;
}

export const ID_VAR = 'CONTAINER_ID';
export const KEY_VAR = 'CONTAINER_API_KEY';

/** From `env` when it has both, else from the first of `envFiles` that has both; null when
 *  none does (files that cannot be read count as not having them). */
export function findInstanceCredential(
  env: Record<string, string | undefined>,
  envFiles: readonly string[],
  home: string,
): InstanceCredential | null {
  const fromEnv = credentialIn((k) => env[k]);
  if (fromEnv) return fromEnv;
  for (const file of envFiles) {
    let vars: Map<string, string>;
    try {
      vars = parseEnviron(readFileSync(expandHome(file, home), 'utf8'));
    } catch {
      continue;
    }
    const found = credentialIn((k) => vars.get(k));
    if (found) return found;
  }
  return null;
}

/** `/proc/<pid>/environ` format: `KEY=VALUE` entries, each ended by NUL. */
export function parseEnviron(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) vars.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return vars;
}

export function expandHome(path: string, home: string): string {
  return path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

function credentialIn(get: (key: string) => string | undefined): InstanceCredential | null {
  const containerId = get(ID_VAR)?.trim();
  const apiKey = get(KEY_VAR)?.trim();
  return containerId && apiKey ? { containerId, apiKey } : null;
}

import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirPrivate } from '../../base/private-files';

export type SecretName = 'vastaiApiKey' | 'runpodApiKey' | 'lambdaApiKey';
export const SECRET_NAMES: readonly SecretName[] = ['vastaiApiKey', 'runpodApiKey', 'lambdaApiKey'];

/** Where provider keys live. The desktop app passes one backed by the OS keychain
 *  (Electron's safeStorage); the CLI and web mode use a 0600 file. Values never leave it
 *  except to the provider that needs them: not to a log, the ledger, or a renderer. */
export interface SecretStore {
  readonly kind: 'keychain' | 'file';
  get(name: SecretName): string | null;
  set(name: SecretName, value: string | null): void;
}

/** `<home>/secrets.json`, mode 0600 (refused if anyone else can read it). */
export class FileSecretStore implements SecretStore {
  readonly kind = 'file' as const;
  private readonly path: string;

  constructor(home: string) {
    this.path = join(home, 'secrets.json');
  }

  get(name: SecretName): string | null {
    const all = this.read();
    return typeof all[name] === 'string' && all[name] !== '' ? all[name] : null;
  }

  set(name: SecretName, value: string | null): void {
    const all = this.read();
    if (value === null || value === '') delete all[name];
    else all[name] = value;
    writePrivateFile(this.path, JSON.stringify(all));
  }

  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    if ((statSync(this.path).mode & 0o077) !== 0) {
      throw new Error(`${this.path} is readable by others: chmod 600 it (it holds API keys)`);
    }
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }
}

/** Replaces `path` with `text` atomically (tmp + rename), readable by its owner only
 *  (0600) from the first byte. */
export function writePrivateFile(path: string, text: string): void {
  mkdirPrivate(dirname(path));
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600); // an existing tmp keeps its mode through writeFileSync
  renameSync(tmp, path);
}

/** A secret from the store, else from the environment (`TENDER_VASTAI_API_KEY`). */
export function secretOrEnv(
  store: SecretStore,
  name: SecretName,
  env: NodeJS.ProcessEnv,
): { value: string | null; source: 'keychain' | 'file' | 'env' | null } {
  const stored = store.get(name);
  if (stored) return { value: stored, source: store.kind };
  const fromEnv = env[ENV_NAMES[name]];
  return fromEnv ? { value: fromEnv, source: 'env' } : { value: null, source: null };
}

export const ENV_NAMES: Record<SecretName, string> = {
  vastaiApiKey: 'TENDER_VASTAI_API_KEY',
  runpodApiKey: 'TENDER_RUNPOD_API_KEY',
  lambdaApiKey: 'TENDER_LAMBDA_API_KEY',
};

/** The key each marketplace is configured with. */
export const PROVIDER_SECRETS: Record<string, SecretName> = {
  vastai: 'vastaiApiKey',
  runpod: 'runpodApiKey',
  lambda: 'lambdaApiKey',
};

/** The environment variable a marketplace's key is read from (`TENDER_RUNPOD_API_KEY`);
 *  undefined for a provider that takes no key. */
export function keyVariable(kind: string): string | undefined {
  const secret = PROVIDER_SECRETS[kind];
  return secret ? ENV_NAMES[secret] : undefined;
}

/** Every provider key that is set (for redaction: none may reach a log). */
export function providerKeys(store: SecretStore, env: NodeJS.ProcessEnv): (string | null)[] {
  return SECRET_NAMES.map((n) => secretOrEnv(store, n, env).value);
}

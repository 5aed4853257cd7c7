import { createHash } from 'node:crypto';
import { ProviderError } from '../provider';
import type { LambdaApiClient } from './api-client';
import { isDuplicate } from './errors';

/** Key type and base64, without the comment: how two copies of one key compare. */
export function keyBody(key: string): string {
  return key.trim().split(/\s+/).slice(0, 2).join(' ');
}

/** The name Tender's key is registered under: `tender-` and the first 12 hex digits of the
 *  SHA-256 of the key blob (what `ssh-keygen -lf` fingerprints). The same key always gets
 *  the same name, on every machine and after every restart; another key, another name. */
export function keyNameOf(publicKey: string): string {
  const blob = Buffer.from(keyBody(publicKey).split(' ')[1] ?? '', 'base64');
  return `tender-${createHash('sha256').update(blob).digest('hex').slice(0, 12)}`;
}

/** The name of a key on the account holding `publicKey`, registering it if none does.
 *  Launches name exactly one existing key, so this runs before the first one. A key already
 *  there under any name (added by hand, by another Tender) is reused; a race with another
 *  process registering the same name (`global/duplicate`) is settled by listing again. */
export async function ensureKeyName(
  api: LambdaApiClient,
  publicKey: string,
  signal: AbortSignal,
): Promise<string> {
  const want = keyBody(publicKey);
  const name = keyNameOf(publicKey);
  const found = async () => {
    const keys = await api.listSshKeys(signal);
    const same = keys.find((k) => keyBody(k.public_key) === want);
    if (same) return same.name;
    if (keys.some((k) => k.name === name))
      throw new ProviderError(
        `the Lambda SSH key named ${name} is not Tender's key (its public key differs)`,
        {
          fatal: true,
          hint: `delete or rename the key ${name} at cloud.lambda.ai → SSH keys`,
        },
      );
    return null;
  };
  const existing = await found();
  if (existing) return existing;
  try {
    await api.addSshKey(name, publicKey, signal);
  } catch (err) {
    if (!isDuplicate(err)) throw err;
    const raced = await found();
    if (raced) return raced;
    throw err;
  }
  return name;
}

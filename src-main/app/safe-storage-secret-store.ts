import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  FileSecretStore,
  type SecretName,
  type SecretStore,
  writePrivateFile,
} from '../services/settings/secret-store';

/** The part of Electron's safeStorage this store uses (injected, so it is tested without
 *  Electron). */
export interface KeychainCipher {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: `basic_text` means no keyring was found and the "encryption" uses a
   *  password compiled into Chromium. */
  getSelectedStorageBackend?(): string;
}

const FILE_NAME = 'secrets.keychain.json';

/** Provider keys encrypted by the OS keychain (Electron's safeStorage): base64 blobs in
 *  `<home>/secrets.keychain.json`, mode 0600. The file alone decrypts nothing. */
export class SafeStorageSecretStore implements SecretStore {
  readonly kind = 'keychain' as const;
  private readonly path: string;
  private readonly warned = new Set<SecretName>();

  constructor(
    home: string,
    private readonly cipher: KeychainCipher,
  ) {
    this.path = join(home, FILE_NAME);
  }

  get(name: SecretName): string | null {
    const blob = this.read()[name];
    if (typeof blob !== 'string' || blob === '') return null;
    try {
      const value = this.cipher.decryptString(Buffer.from(blob, 'base64'));
      return value === '' ? null : value;
    } catch (err) {
      // Another user's or machine's keychain wrote it: unreadable here, so it counts as unset.
      if (!this.warned.has(name)) {
        this.warned.add(name);
        console.warn(
          `tender: the stored ${name} cannot be decrypted by this keychain (${(err as Error).message}); set it again in Settings`,
        );
      }
      return null;
    }
  }

  set(name: SecretName, value: string | null): void {
    const all = this.read();
    if (value === null || value === '') delete all[name];
    else all[name] = this.cipher.encryptString(value).toString('base64');
    this.warned.delete(name);
    writePrivateFile(this.path, JSON.stringify({ version: 1, secrets: all }));
  }

  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    // Only ciphertext is inside, but nobody else has any business reading it either.
    if ((statSync(this.path).mode & 0o077) !== 0) chmodSync(this.path, 0o600);
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { secrets?: unknown };
      const secrets = parsed.secrets;
      return secrets && typeof secrets === 'object'
        ? { ...(secrets as Record<string, string>) }
        : {};
    } catch {
      return {};
    }
  }
}

/** Whether the OS keychain really protects what safeStorage encrypts. */
export function isKeychainUsable(cipher: KeychainCipher, platform = process.platform): boolean {
  if (!cipher.isEncryptionAvailable()) return false;
  return !(platform === 'linux' && cipher.getSelectedStorageBackend?.() === 'basic_text');
}

/** The keychain store when the OS keychain works; otherwise the CLI's 0600 file, with the
 *  reason, so the app can say where keys went (Settings shows the source as `file`). */
export function chooseSecretStore(
  home: string,
  cipher: KeychainCipher,
  platform = process.platform,
): { store: SecretStore; fallbackReason: string | null } {
  if (isKeychainUsable(cipher, platform)) {
    return { store: new SafeStorageSecretStore(home, cipher), fallbackReason: null };
  }
  const why =
    platform === 'linux'
      ? 'no keyring (GNOME Keyring or KWallet) is available to this session'
      : 'the OS keychain is not available';
  return {
    store: new FileSecretStore(home),
    fallbackReason: `${why}: provider keys are kept in ${join(home, 'secrets.json')} (mode 0600) instead`,
  };
}

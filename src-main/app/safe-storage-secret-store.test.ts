import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileSecretStore } from '../services/settings/secret-store';
import {
  chooseSecretStore,
  SafeStorageSecretStore,
  type KeychainCipher,
} from './safe-storage-secret-store';

/** A stand-in for safeStorage: reversible, but never the plain text on disk. */
function fakeCipher(over: Partial<KeychainCipher> = {}): KeychainCipher {
  return {
    isEncryptionAvailable: () => true,
    encryptString: (s) => Buffer.from(`enc:${[...s].reverse().join('')}`),
    decryptString: (b) => {
      const s = b.toString();
      if (!s.startsWith('enc:')) throw new Error('Error while decrypting the ciphertext provided');
      return [...s.slice(4)].reverse().join('');
    },
    ...over,
  };
}

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tender-keychain-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe('SafeStorageSecretStore', () => {
  it('keeps only ciphertext, base64, in a 0600 file', () => {
    const store = new SafeStorageSecretStore(home, fakeCipher());
    store.set('vastaiApiKey', 'sk-very-secret');
    const path = join(home, 'secrets.keychain.json');
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('sk-very-secret');
    expect(text).not.toContain('terces-yrev');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const blob = (JSON.parse(text) as { secrets: Record<string, string> }).secrets.vastaiApiKey!;
    expect(Buffer.from(blob, 'base64').toString()).toBe('enc:terces-yrev-ks');
    expect(store.kind).toBe('keychain');
    expect(new SafeStorageSecretStore(home, fakeCipher()).get('vastaiApiKey')).toBe(
      'sk-very-secret',
    );
  });

  it('forgets a key set to null, and reads nothing from a missing file', () => {
    const store = new SafeStorageSecretStore(home, fakeCipher());
    expect(store.get('vastaiApiKey')).toBeNull();
    store.set('vastaiApiKey', 'k');
    store.set('vastaiApiKey', null);
    expect(store.get('vastaiApiKey')).toBeNull();
  });

  it('treats a blob this keychain cannot decrypt as unset, and warns once', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    writeFileSync(
      join(home, 'secrets.keychain.json'),
      JSON.stringify({
        version: 1,
        secrets: { vastaiApiKey: Buffer.from('other').toString('base64') },
      }),
      { mode: 0o600 },
    );
    const store = new SafeStorageSecretStore(home, fakeCipher());
    expect(store.get('vastaiApiKey')).toBeNull();
    expect(store.get('vastaiApiKey')).toBeNull();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/set it again in Settings/);
  });

  it('tightens a file others could read', () => {
    const path = join(home, 'secrets.keychain.json');
    writeFileSync(path, JSON.stringify({ version: 1, secrets: {} }));
    chmodSync(path, 0o644);
    new SafeStorageSecretStore(home, fakeCipher()).get('vastaiApiKey');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('chooseSecretStore', () => {
  it('uses the keychain when it encrypts for real', () => {
    const r = chooseSecretStore(home, fakeCipher(), 'darwin');
    expect(r.store).toBeInstanceOf(SafeStorageSecretStore);
    expect(r.fallbackReason).toBeNull();
    const linux = chooseSecretStore(
      home,
      fakeCipher({ getSelectedStorageBackend: () => 'gnome_libsecret' }),
      'linux',
    );
    expect(linux.store.kind).toBe('keychain');
  });

  it('falls back to the 0600 file, and says why, without a keychain', () => {
    const r = chooseSecretStore(home, fakeCipher({ isEncryptionAvailable: () => false }), 'win32');
    expect(r.store).toBeInstanceOf(FileSecretStore);
    expect(r.fallbackReason).toMatch(/secrets\.json \(mode 0600\)/);
  });

  it("treats Linux's basic_text backend (a password built into Chromium) as no keychain", () => {
    const r = chooseSecretStore(
      home,
      fakeCipher({ getSelectedStorageBackend: () => 'basic_text' }),
      'linux',
    );
    expect(r.store.kind).toBe('file');
    expect(r.fallbackReason).toMatch(/no keyring/);
  });
});

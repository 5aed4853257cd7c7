import { createHash } from 'node:crypto';

/** What a server offered as its host key. */
export interface HostKeyInfo {
  /** The key's type as written in known_hosts: `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`… */
  type: string;
  /** `SHA256:` + base64 (no padding) of sha256(blob): what `ssh-keygen -l` prints. */
  fingerprint: string;
  /** The raw public key blob (the base64 field of a known_hosts line, decoded). */
  key: Buffer;
}

/** Decides whether to trust the server's key: return null to accept, or a reason to refuse.
 *  `preferredKeyTypes`, when present, names the key types already trusted for this host, so
 *  the connection asks the server for one of those first (as OpenSSH's client does) rather
 *  than being offered a key of another type it cannot check. */
export type HostKeyCheck = ((info: HostKeyInfo) => string | null) & {
  preferredKeyTypes?: () => string[];
};

/** A HostKeyCheck whose verdict comes later: an early dial's, whose pins are read once the
 *  ledger is open (nodes/early-dials.ts). The handshake waits for it. */
export type DeferredHostKeyCheck = ((info: HostKeyInfo) => Promise<string | null>) & {
  preferredKeyTypes?: () => string[];
};

export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** Reads the type name that every SSH public key blob starts with (uint32 length + bytes). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const len = blob.readUInt32BE(0);
  if (len === 0 || len > 64 || 4 + len > blob.length) return 'unknown';
  return blob.subarray(4, 4 + len).toString('latin1');
}

export function hostKeyInfo(blob: Buffer): HostKeyInfo {
  return { type: keyTypeOf(blob), fingerprint: fingerprintOf(blob), key: Buffer.from(blob) };
}

/** The host key algorithms that can present a key of `type` (RSA keys sign with SHA-2 now). */
export function algorithmsForKeyType(type: string): string[] {
  return type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [type];
}

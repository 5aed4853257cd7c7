// The host declaration on the agent's command line: base64url of its canonical JSON, so
// no shell quoting can change it on the way.
import { canonicalJson, type HostKeyInput } from './host-key';

export function encodeHostDeclaration(decl: HostKeyInput): string {
  return Buffer.from(canonicalJson(decl), 'utf8').toString('base64url');
}

export function decodeHostDeclaration(text: string): HostKeyInput {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw new Error('--host-decl is not base64url JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('--host-decl is not a JSON object');
  return value as HostKeyInput;
}

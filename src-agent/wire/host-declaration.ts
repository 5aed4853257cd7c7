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

/** What `--host-setup` carries beside the declaration: each host_setup entry's script with
 *  its name, refresh_capabilities and the names (never the values) of the secrets it runs
 *  with, which are not in the key. */
export interface HostSetupOption {
  script: string;
  name?: string;
  refreshCapabilities?: boolean;
  secrets?: string[];
}

export function encodeHostSetupOptions(options: HostSetupOption[]): string {
  return Buffer.from(JSON.stringify(options), 'utf8').toString('base64url');
}

export function decodeHostSetupOptions(text: string): HostSetupOption[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw new Error('--host-setup is not base64url JSON');
  }
  if (!Array.isArray(value) || value.some((o) => !isOption(o)))
    throw new Error(
      '--host-setup is not a JSON list of {script, name?, refreshCapabilities?, secrets?}',
    );
  return value as HostSetupOption[];
}

function isOption(o: unknown): boolean {
  const opt = o as HostSetupOption;
  if (typeof opt?.script !== 'string') return false;
  return (
    opt.secrets === undefined ||
    (Array.isArray(opt.secrets) && opt.secrets.every((n) => typeof n === 'string'))
  );
}

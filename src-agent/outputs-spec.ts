// The `--spec` argument of `pack-outputs`: base64url of `{"paths":[…]}`. Both sides use it.
import type { OutputsSpec } from './wire/protocol';

export function encodeOutputsSpec(spec: OutputsSpec): string {
  return Buffer.from(JSON.stringify(spec)).toString('base64url');
}

export function decodeOutputsSpec(b64: string): OutputsSpec {
  let spec: unknown;
  try {
    spec = JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
  } catch {
    throw new Error('--spec is not base64url of JSON');
  }
  const paths = (spec as { paths?: unknown } | null)?.paths;
  if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string' && p !== '')) {
    throw new Error('--spec must encode {"paths": ["relative/path", …]}');
  }
  return { paths };
}

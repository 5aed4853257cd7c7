// stdout of the one-shot commands: the marker, then JSON. Resolves once written (the
// process may exit right after, and a pipe would otherwise lose the tail).
import { STREAM_MARKER } from './wire/marker';
import type { CommandError } from './wire/protocol';

export function printResult(value: object): Promise<void> {
  return new Promise((resolve) =>
    process.stdout.write(`${STREAM_MARKER}${JSON.stringify(value)}\n`, () => resolve()),
  );
}

export function commandError(code: string, message: string, path?: string): CommandError {
  return { error: path === undefined ? { code, message } : { code, message, path } };
}

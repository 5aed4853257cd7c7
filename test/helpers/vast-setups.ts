// Kept apart from vast-core.ts, which the benches and the UI demo load outside vitest.
import { afterEach } from 'vitest';
import { vastSetup } from './vast-core';

/** `vastSetup` for one test file: what each call starts is closed after its test. */
export function vastSetups(): (
  ...args: Parameters<typeof vastSetup>
) => ReturnType<typeof vastSetup> {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });
  return async (...args) => {
    const t = await vastSetup(...args);
    closers.push(() => t.close());
    return t;
  };
}

// Polling for a condition in tests. No timing is asserted by these: the bound is a failure
// message (until) or the test's own timeout (eventually).

/** Resolves with the first truthy value `f` returns; fails after `ms`, naming `what` it
 *  waited for. */
export async function until<T>(
  f: () => T | undefined | null | false,
  ms = 30_000,
  everyMs = 25,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what} not met in ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `until` for a value that has to be awaited (a read through a client): the first truthy
 *  one, or a failure after `ms` naming `what` it waited for and the last value seen. A read
 *  may throw to end the wait at once (a run that failed will never log what is awaited). */
export async function untilAsync<T>(
  f: () => Promise<T | undefined | null | false>,
  opts: { ms: number; what: string; everyMs?: number; describe?: () => string },
): Promise<T> {
  const end = Date.now() + opts.ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end)
      throw new Error(
        `waited ${opts.ms} ms for ${opts.what}` + (opts.describe ? `: ${opts.describe()}` : ''),
      );
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 100));
  }
}

/** Resolves once `condition` holds; only the test's timeout bounds it. */
export async function eventually(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

/** `eventually` for a condition that has to be awaited (a read through the client). */
export async function eventuallyAsync(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setTimeout(r, 20));
}

/** A test's time, shared by its waits: each gets its own bound or what is left, whichever is
 *  less, so the wait that runs out names itself before the test's timeout does. Keep `ms`
 *  under the test's timeout by what the steps between waits take. */
export function timeBudget(ms: number): { left(own: number): number } {
  const end = Date.now() + ms;
  return { left: (own) => Math.max(1, Math.min(own, end - Date.now())) };
}

// Polling for a condition in tests. No timing is asserted by these: the bound is a failure
// message (until) or the test's own timeout (eventually).

/** Resolves with the first truthy value `f` returns; fails after `ms`. */
export async function until<T>(
  f: () => T | undefined | null | false,
  ms = 30_000,
  everyMs = 25,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
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

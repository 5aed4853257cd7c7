/** Test-only: `TENDER_TEST_CRASH_AT=<point>` kills this process with SIGKILL when the named
 *  effect boundary is reached, so crash-safety tests can stop it exactly there. Points:
 *  before-create-call, after-create-call, before-destroy-call, after-destroy-call,
 *  job-running, warm-claim (inside the claim's transaction), after-warm-claim. Inert unless the variable is set. */
export function crashPoint(name: string, env: NodeJS.ProcessEnv = process.env): void {
  const at = env.TENDER_TEST_CRASH_AT;
  if (!at || at !== name) return;
  process.stderr.write(`tender: TENDER_TEST_CRASH_AT=${name}: killing this process now\n`);
  process.kill(process.pid, 'SIGKILL');
}

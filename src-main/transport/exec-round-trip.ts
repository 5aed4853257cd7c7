// The quickest exec round trip seen to each SSH endpoint (`host:port`): the time from asking
// for a command to sshd's answer that it runs (a channel open and an exec request, two round
// trips, plus sshd's fork). It tells a LAN from a long link before anything large is sent:
// a push across a LAN is sent plain (push-compression.ts). Kept per endpoint, not per
// connection, so a push over a new connection knows what earlier ones (a bootstrap) saw.

const quickest = new Map<string, number>();

/** One exec to `endpoint` took `ms` to be granted. */
export function noteExecRoundTrip(endpoint: string, ms: number): void {
  const before = quickest.get(endpoint);
  if (before === undefined || ms < before) quickest.set(endpoint, ms);
}

/** The quickest exec round trip seen to `endpoint`, or undefined before any. */
export function quickestExecRoundTrip(endpoint: string): number | undefined {
  return quickest.get(endpoint);
}

/** Forgets every endpoint (tests). */
export function forgetExecRoundTrips(): void {
  quickest.clear();
}

import type { BootstrapStage } from '../contract';

export type BootstrapFailureStage = Extract<
  BootstrapStage,
  | 'ssh_timeout'
  | 'boot_check_failed'
  | 'start_failed'
  | 'join_timeout'
  | 'stream_error'
  | 'cancelled'
>;

export class BootstrapError extends Error {
  constructor(
    readonly stage: BootstrapFailureStage,
    readonly reason: string,
  ) {
    super(`${stage}: ${reason}`);
    this.name = 'BootstrapError';
  }
}

/** Runs `fn` with its own abort signal that fires on the deadline or the outer signal. */
export async function withDeadline<T>(
  ms: number,
  outer: AbortSignal,
  onTimeout: () => BootstrapError,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, ms);
  const onOuter = () => ctl.abort();
  outer.addEventListener('abort', onOuter, { once: true });
  try {
    const result = await Promise.race([
      fn(ctl.signal),
      new Promise<never>((_, reject) =>
        ctl.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      ),
    ]);
    return result;
  } catch (err) {
    if (outer.aborted) throw new BootstrapError('cancelled', 'the bootstrap was cancelled');
    if (timedOut) throw onTimeout();
    throw err;
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onOuter);
  }
}

/** The last three lines of a command's output, for an error message. */
export function outputTail(text: string): string {
  const lines = text.trim().split('\n');
  return lines.slice(-3).join(' | ') || '(no output)';
}

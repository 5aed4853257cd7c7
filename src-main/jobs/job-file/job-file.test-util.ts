import { expect } from 'vitest';
import { BadInputError } from '../../base/bad-input-error';

/** The BadInputError a job file load throws; fails the test when it loads instead. */
export async function rejection(attempt: () => Promise<unknown>): Promise<BadInputError> {
  try {
    await attempt();
  } catch (err) {
    expect(err).toBeInstanceOf(BadInputError);
    return err as BadInputError;
  }
  throw new Error('expected the job file to be rejected');
}

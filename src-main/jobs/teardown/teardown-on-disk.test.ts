import { describe, expect, it } from 'vitest';
import { parseTeardownRecord } from './teardown-on-disk';

const stored = {
  cause: 'max_duration',
  reason: 'max duration reached',
  at: 1_800_000_000_000,
  state: 'files_removed',
  teardown: { kind: 'remove-files' },
};
const record = {
  cause: 'max_duration',
  reason: 'max duration reached',
  at: 1_800_000_000_000,
  state: 'files_removed',
};

describe('parseTeardownRecord: D/teardown.json as cat prints it', () => {
  it.each([
    [
      'the file as the agent writes it (how to tear down left out)',
      `${JSON.stringify(stored)}\n`,
      record,
    ],
    [
      "a login shell's noise before it",
      `Welcome to Lambda Stack\n${JSON.stringify(stored)}\n`,
      record,
    ],
    [
      'a failed teardown keeps its error',
      JSON.stringify({ ...stored, state: 'failed', error: 'could not remove the run files' }),
      { ...record, state: 'failed', error: 'could not remove the run files' },
    ],
    ['no file (cat printed nothing)', '', null],
    ['not JSON', 'cat: teardown.json: Permission denied', null],
    ['an unknown state', JSON.stringify({ ...stored, state: 'exploded' }), null],
    ['no reason', JSON.stringify({ ...stored, reason: undefined }), null],
    ['not an object', '42', null],
  ] as const)('%s', (_name, text, want) => {
    expect(parseTeardownRecord(text)).toEqual(want);
  });
});

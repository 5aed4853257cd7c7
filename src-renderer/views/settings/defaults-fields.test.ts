import { describe, expect, it } from 'vitest';
import { asForm, fieldsOf, patchOf, type Defaults } from './defaults-fields';

const saved = {
  connectDeadlineMin: 5,
  endpointDeadlineMin: 15,
  maxBootAttempts: 3,
  cancelGraceSec: 10,
  diskGb: 32,
  maxDurationH: 24,
  idleTimeoutMin: 20,
  unreachableGraceMin: 30,
  collectGraceMin: 60,
  afterJob: 'destroy',
} as Defaults;

describe('defaults form', () => {
  it('sends only what changed, numbers as numbers', () => {
    const form = { ...asForm(saved), diskGb: '64', afterJob: 'keep_warm', cancelGraceSec: ' 10 ' };
    expect(patchOf(form, saved)).toEqual({
      patch: { diskGb: 64, afterJob: 'keep_warm' },
      notNumbers: [],
    });
  });

  it('names the fields that are not numbers', () => {
    expect(patchOf({ ...asForm(saved), maxBootAttempts: 'three' }, saved).notNumbers).toEqual([
      'maxBootAttempts',
    ]);
  });

  it('shows only the defaults the running Tender has', () => {
    const older = { connectDeadlineMin: 5, diskGb: 32 } as unknown as Defaults;
    expect(fieldsOf(older).map((f) => f.key)).toEqual(['connectDeadlineMin', 'diskGb']);
  });
});

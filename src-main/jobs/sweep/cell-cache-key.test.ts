import { describe, expect, it } from 'vitest';
import { JobSpec } from '../../contract';
import { cellCacheKey, type CellKeyInput } from './cell-cache-key';

const base: CellKeyInput = {
  job: JobSpec.parse({ name: 'j', run: 'python train.py', params: { E: '3' }, env: { A: '1' } }),
  values: { LR: '1e-4' },
  workspaceDigest: 'abc',
  image: null,
  tenderVersion: '0.1.0',
};
const key = (over: Partial<CellKeyInput> = {}, job: Record<string, unknown> = {}) =>
  cellCacheKey({ ...base, ...over, job: JobSpec.parse({ ...base.job, ...job }) });

describe('cellCacheKey', () => {
  it('is stable, and the same for the same computation written in another order', () => {
    expect(key()).toBe(key());
    expect(key()).toMatch(/^ck1_[0-9a-f]{64}$/);
    expect(key({ values: { LR: '1e-4' } }, { params: { E: '3' } })).toBe(key());
    expect(key({}, { constraints: ['b == 1', 'a == 1'] })).toBe(
      key({}, { constraints: ['a == 1', 'b == 1'] }),
    );
  });

  it.each([
    ['the command', {}, { run: 'python train.py --fast' }],
    ['a value', { values: { LR: '3e-4' } }, {}],
    ['a job param', {}, { params: { E: '4' } }],
    ['the workspace', { workspaceDigest: 'abd' }, {}],
    ['the image', { image: 'pytorch/pytorch:2.3' }, {}],
    ["Tender's version", { tenderVersion: '0.2.0' }, {}],
    ['the setup', {}, { setup: 'pip install -r requirements.txt' }],
    ['an env value', {}, { env: { A: '2' } }],
    ['a constraint', {}, { constraints: ['os == linux'] }],
    ['the outputs', {}, { outputs: ['out/'] }],
  ])('changes with %s', (_what, over, job) => {
    expect(key(over as Partial<CellKeyInput>, job)).not.toBe(key());
  });

  it('keys a secret by its name only: its value is never part of it', () => {
    const a = key({}, { env: { T: { secret: true, value: 'one' } } });
    const b = key({}, { env: { T: { secret: true, value: 'two' } } });
    expect(a).toBe(b);
  });
});

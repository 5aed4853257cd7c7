import { describe, expect, it } from 'vitest';
import type { SetupEnvRequest } from '../../../src-agent/wire/protocol';
import { JobSpec, type JobSpecInput } from '../../contract';
import { configureParams } from '../secrets/job-secrets';
import { setupEnvRequest, shapeImage, type SetupEnvOptions } from './setup-env-request';

const SETUP = 'python -m venv $TENDER_ENV && pip install -r requirements.txt';
const job = (over: Partial<JobSpecInput> = {}) =>
  JobSpec.parse({ name: 'j', run: 'python train.py', setup: SETUP, ...over });

describe('setupEnvRequest: how a job keys its environment on the node', () => {
  // [what, job fields, options, expected setupEnv]
  // prettier-ignore
  const cases: [string, Partial<JobSpecInput>, SetupEnvOptions, SetupEnvRequest | undefined][] = [
    ['no setup_fingerprint: cached on the usual dependency files', {}, {}, { fingerprint: 'auto', fresh: false }],
    ['setup_fingerprint overrides the list', { setup_fingerprint: ['req.txt', 'env.yml'] }, {}, { fingerprint: ['req.txt', 'env.yml'], fresh: false }],
    ['setup_fingerprint = [] is the default list', { setup_fingerprint: [] }, {}, { fingerprint: 'auto', fresh: false }],
    ['--fresh-setup rebuilds', {}, { freshSetup: true }, { fingerprint: 'auto', fresh: true }],
    ['setup_cache = false: built every run', { setup_cache: false }, {}, { fingerprint: 'auto', fresh: true, uncached: true }],
    ['a sweep cell takes what the node setup built, cached or not', { setup_cache: false }, { isCell: true }, { fingerprint: 'auto', fresh: false, uncached: true }],
    ['the image is part of the key', {}, { image: 'pytorch/pytorch:2.4' }, { fingerprint: 'auto', fresh: false, image: 'pytorch/pytorch:2.4' }],
    ['no setup: no environment', { setup: undefined }, {}, undefined],
  ];
  it.each(cases)('%s', (_what, over, opts, expected) => {
    expect(setupEnvRequest(job(over), opts)).toEqual(expected);
  });

  it('goes into the configure request with the attempt', () => {
    const params = configureParams('r-1.node-0', job(), { attempt: 2, image: 'img' });
    expect(params.attempt).toBe(2);
    expect(params.setupEnv).toEqual({ fingerprint: 'auto', fresh: false, image: 'img' });
    expect(configureParams('r-1.node-0', job({ setup: undefined }))).not.toHaveProperty('setupEnv');
  });
});

describe('shapeImage', () => {
  it.each<[Record<string, unknown>, string | undefined]>([
    [{ image: 'pytorch/pytorch:2.4' }, 'pytorch/pytorch:2.4'],
    [{}, undefined],
    [{ image: '' }, undefined],
    [{ image: 3 }, undefined],
  ])('%j → %s', (shape, expected) => {
    expect(shapeImage(shape)).toBe(expected);
  });
});

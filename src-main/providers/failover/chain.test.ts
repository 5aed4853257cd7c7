import { describe, expect, it } from 'vitest';
import { chainKind, chainOf, isInChain, providerNameProblem } from './chain';

const KNOWN = ['local', 'ssh', 'vastai', 'slurm', 'runpod', 'lambda'];

describe('provider chains', () => {
  it.each([
    ['vastai', null],
    ['runpod,vastai', ['runpod', 'vastai']],
    ['cheapest', ['vastai', 'runpod', 'lambda']],
  ])('chainOf(%s)', (kind, want) => expect(chainOf(kind)).toEqual(want));

  it('a list is known by its names joined', () => {
    expect(chainKind(['runpod', 'vastai'])).toBe('runpod,vastai');
    expect(chainKind(['lambda'])).toBe('lambda');
  });

  it.each([
    ['runpod,vastai', 'vastai', true],
    ['runpod,vastai', 'lambda', false],
    ['cheapest', 'lambda', true],
    ['vastai', 'vastai', true],
    ['vastai', 'runpod', false],
  ])('isInChain(%s, %s) = %s', (kind, p, want) => expect(isInChain(kind, p)).toBe(want));

  it.each([
    ['vastai', null],
    ['cheapest', null],
    ['runpod,vastai,lambda', null],
    ['nope', /unknown provider "nope"/],
    ['runpod,nope', /unknown provider "nope" in "runpod,nope"/],
    ['runpod,local', /local cannot be one of several providers/],
    ['runpod,runpod', /runpod is named twice/],
    ['runpod,', /unknown provider ""/],
  ])('providerNameProblem(%s)', (kind, want) => {
    const p = providerNameProblem(kind, KNOWN);
    if (want === null) expect(p).toBeNull();
    else expect(p?.text).toMatch(want);
  });
});

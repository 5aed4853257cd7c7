import { describe, expect, it } from 'vitest';
import { isNoneAnswered, sourceItems, type Source } from './offer-sources';

const ok = (provider: string, count: number): Source => ({ provider, count, error: null });
const failed = (provider: string, message: string, hint: string | null = null): Source => ({
  provider,
  count: 0,
  error: { message, hint },
});

describe('the line of what each marketplace answered', () => {
  it('counts each, names the failing one with its fix, and says which have no key', () => {
    const items = sourceItems(
      [
        ok('vastai', 12),
        failed('lambda', 'Lambda Cloud refused the API key', 'set TENDER_LAMBDA_API_KEY'),
      ],
      ['vastai', 'lambda'],
    );
    expect(items).toEqual([
      { provider: 'vastai', state: 'ok', text: 'Vast.ai 12', isKeyProblem: false },
      {
        provider: 'lambda',
        state: 'error',
        text: 'Lambda Cloud: refused the API key — set TENDER_LAMBDA_API_KEY',
        isKeyProblem: true,
      },
      {
        provider: 'runpod',
        state: 'off',
        text: 'RunPod: no API key (set TENDER_RUNPOD_API_KEY or add it in Settings)',
        isKeyProblem: true,
      },
    ]);
  });

  it('a failure that is no key problem is not one', () => {
    const [item] = sourceItems([failed('runpod', 'RunPod did not answer in 120 s')], ['runpod']);
    expect(item).toMatchObject({ state: 'error', isKeyProblem: false });
  });

  it.each<[string, Source[], boolean]>([
    ['every one failed', [failed('vastai', 'x'), failed('runpod', 'y')], true],
    ['one answered with nothing', [failed('vastai', 'x'), ok('runpod', 0)], false],
    ['none searched', [], false],
  ])('nothing answered when %s', (_, sources, none) => {
    expect(isNoneAnswered(sources)).toBe(none);
  });
});

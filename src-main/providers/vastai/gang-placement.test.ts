import { describe, expect, it } from 'vitest';
import { sameLocationFirst } from './gang-placement';

describe('sameLocationFirst (a gang lands in one location)', () => {
  it('puts the cheapest offer’s location first, each group in its order', () => {
    const o = (id: string, location: string | null) => ({ id, location });
    expect(
      sameLocationFirst([o('a', 'PL'), o('b', 'US'), o('c', 'PL'), o('d', null), o('e', 'US')]).map(
        (x) => x.id,
      ),
    ).toEqual(['a', 'c', 'b', 'd', 'e']);
    expect(sameLocationFirst([o('a', null), o('b', 'US')]).map((x) => x.id)).toEqual(['a', 'b']);
  });
});

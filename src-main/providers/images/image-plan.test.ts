import { describe, expect, it } from 'vitest';
import { cachedInspector, planImage } from './image-plan';
import type { ImageLookup } from './registry-client';
import { parseChallenge } from './registry-client';

const FACTS: ImageLookup = {
  facts: {
    ref: 'a/b:1',
    platforms: [{ os: 'linux', architecture: 'amd64' }],
    compressedBytes: 2_000_000_000,
    user: 'researcher',
    source: 'docker.io',
  },
};

describe('cachedInspector', () => {
  it.each<[string, ImageLookup, number, number]>([
    ['an answer is kept 10 minutes', FACTS, 9 * 60_000, 1],
    ['… and asked again after', FACTS, 11 * 60_000, 2],
    ['a failure is kept a minute', { unknown: 'docker.io unreachable' }, 30_000, 1],
    ['… and asked again after', { unknown: 'docker.io unreachable' }, 61_000, 2],
  ])('%s', async (_, answer, later, asks) => {
    let t = 0;
    let calls = 0;
    const inspect = cachedInspector(
      async () => {
        calls += 1;
        return answer;
      },
      undefined,
      undefined,
      () => t,
    );
    await inspect('a/b:1', AbortSignal.timeout(1000));
    t = later;
    expect(await inspect('a/b:1', AbortSignal.timeout(1000))).toEqual(answer);
    expect(calls).toBe(asks);
  });
});

describe('planImage', () => {
  it.each<[string, ImageLookup | null, string]>([
    ['described', FACTS, 'image a/b:1: 2.0 GB compressed (docker.io), runs as researcher'],
    [
      'not described',
      { unknown: 'docker.io unreachable (ENOTFOUND)' },
      'image a/b:1: size unknown (docker.io unreachable (ENOTFOUND))',
    ],
    ['no inspector', null, 'image a/b:1: size unknown (registry not asked)'],
  ])('%s: its note', async (_, lookup, note) => {
    const plan = await planImage(
      'a/b:1',
      lookup ? async () => lookup : undefined,
      ['amd64'],
      AbortSignal.timeout(1000),
    );
    expect(plan.note).toBe(note);
    expect(plan.verdict.ok).toBe(true);
  });
});

describe('parseChallenge', () => {
  it.each([
    [
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/ubuntu:pull"',
      {
        realm: 'https://auth.docker.io/token',
        service: 'registry.docker.io',
        scope: 'repository:library/ubuntu:pull',
      },
    ],
    ['bearer Realm="https://ghcr.io/token"', { realm: 'https://ghcr.io/token' }],
    ['Basic realm="registry"', {}],
    ['', {}],
  ])('%j', (header, want) => expect(parseChallenge(header)).toEqual(want));
});

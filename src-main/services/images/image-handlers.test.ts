import { describe, expect, it } from 'vitest';
import { WELL_KNOWN_IMAGES } from '../../contract';
import { parseImageRef } from '../../providers/images/image-ref';
import { judgeImage } from '../../providers/images/image-check';
import { imageInfo } from './image-handlers';

describe('the well-known images', () => {
  it.each(WELL_KNOWN_IMAGES.map((w) => [w.image, w] as const))(
    '%s is a pinned, usable name',
    (name, w) => {
      const ref = parseImageRef(name);
      expect('problem' in ref ? ref.problem : null).toBeNull();
      expect(!('problem' in ref) && ref.reference).not.toBe('latest');
      expect(judgeImage(name, null, ['amd64']).ok).toBe(true);
      for (const m of w.cachedOn) expect(['vastai', 'runpod', 'lambda']).toContain(m);
      expect(w.seen.length).toBeGreaterThan(10);
    },
  );

  it('lists each image once, a marketplace image for each marketplace', () => {
    const names = WELL_KNOWN_IMAGES.map((w) => w.image);
    expect(new Set(names).size).toBe(names.length);
    expect(names.some((n) => n.startsWith('runpod/'))).toBe(true);
    expect(names.some((n) => n.startsWith('vastai/'))).toBe(true);
    expect(names.some((n) => n.startsWith('nvcr.io/nvidia/'))).toBe(true);
  });
});

describe('imageInfo', () => {
  const facts = {
    ref: 'x',
    platforms: [{ os: 'linux', architecture: 'amd64' }],
    compressedBytes: 3_200_000_000,
    user: 'researcher:staff',
    source: 'ghcr.io',
  };
  it.each([
    [
      'a described image',
      'ghcr.io/lab/x:1',
      { facts },
      {
        sizeBytes: 3.2e9,
        sizeText: '3.2 GB compressed (ghcr.io)',
        platforms: ['linux/amd64'],
        user: 'researcher',
        problem: null,
      },
    ],
    [
      'an image the registry would not describe',
      'ghcr.io/lab/x:1',
      { unknown: 'ghcr.io wants a login to describe ghcr.io/lab/x:1' },
      {
        sizeBytes: null,
        sizeText: 'size unknown (ghcr.io wants a login to describe ghcr.io/lab/x:1)',
        platforms: [],
        user: null,
        problem: null,
      },
    ],
    [
      'an image with no shell',
      'gcr.io/distroless/base',
      { unknown: 'gcr.io unreachable' },
      { sizeBytes: null, problem: expect.stringContaining('has no shell') },
    ],
    [
      'an arm64-only image: runs on arm64 hosts, so no problem yet',
      'lab/gh200:1',
      { facts: { ...facts, platforms: [{ os: 'linux', architecture: 'arm64' }] } },
      { platforms: ['linux/arm64'], problem: null },
    ],
  ])('%s', (_, image, lookup, want) => {
    expect(imageInfo(image, lookup)).toMatchObject({ image, ...want });
  });
});

import { describe, expect, it } from 'vitest';
import { dockerArch, formatBytes, imageUser, judgeImage, sizeText } from './image-check';
import type { ImageFacts } from './registry-client';

function facts(over: Partial<ImageFacts> = {}): ImageFacts {
  return {
    ref: 'x',
    platforms: [{ os: 'linux', architecture: 'amd64' }],
    compressedBytes: 3_200_000_000,
    user: '',
    source: 'docker.io',
    ...over,
  };
}

describe('judgeImage', () => {
  it.each<[string, string, ImageFacts | null, string[], string | null]>([
    ['no facts: judged by name only', 'pytorch/pytorch:2.5.1', null, ['amd64'], null],
    ['amd64 on amd64', 'a/b', facts(), ['amd64'], null],
    [
      'multi-platform',
      'a/b',
      facts({
        platforms: [
          { os: 'linux', architecture: 'arm64' },
          { os: 'linux', architecture: 'amd64' },
        ],
      }),
      ['amd64'],
      null,
    ],
    [
      'arm64-only on amd64 hosts',
      'lab/gh200:1',
      facts({ platforms: [{ os: 'linux', architecture: 'arm64' }] }),
      ['amd64'],
      'built for arm64 only; the hosts are amd64',
    ],
    [
      'arm64-only where an arm64 host is among them',
      'lab/gh200:1',
      facts({ platforms: [{ os: 'linux', architecture: 'arm64' }] }),
      ['amd64', 'aarch64'],
      null,
    ],
    [
      'hosts not known',
      'a/b',
      facts({ platforms: [{ os: 'linux', architecture: 'arm64' }] }),
      [],
      null,
    ],
    [
      'windows',
      'mcr.microsoft.com/windows/servercore:ltsc2022',
      facts({ platforms: [{ os: 'windows', architecture: 'amd64' }] }),
      ['amd64'],
      'not Linux',
    ],
    ['distroless', 'gcr.io/distroless/python3-debian12', null, ['amd64'], 'has no shell'],
    ['distroless with a tag', 'gcr.io/distroless/base:nonroot', null, [], 'has no shell'],
    ['distroless :debug has busybox', 'gcr.io/distroless/base:debug', null, [], null],
    ['scratch', 'scratch', null, [], 'has no shell'],
    ['a name with distroless elsewhere', 'lab/not-distroless:1', null, [], null],
  ])('%s', (_, image, f, archs, refusal) => {
    const v = judgeImage(image, f, archs);
    if (refusal === null) expect(v.ok, JSON.stringify(v)).toBe(true);
    else {
      expect(v.ok).toBe(false);
      expect(!v.ok && v.reason).toContain(refusal);
      expect(!v.ok && v.hint.length).toBeGreaterThan(10);
    }
  });

  it('names the user the image runs as', () => {
    const v = judgeImage('a/b', facts({ user: 'researcher:staff' }), ['amd64']);
    expect(v.ok && v.user).toEqual({ kind: 'named', name: 'researcher' });
  });
});

describe('imageUser', () => {
  it.each([
    ['', { kind: 'root' }],
    ['root', { kind: 'root' }],
    ['0:0', { kind: 'root' }],
    ['researcher', { kind: 'named', name: 'researcher' }],
    ['1000', { kind: 'uid', uid: '1000' }],
    ['1000:1000', { kind: 'uid', uid: '1000' }],
  ])('%j', (u, want) => expect(imageUser(u)).toEqual(want));
});

describe('sizes', () => {
  it.each([
    ['x86_64', 'amd64'],
    ['x64', 'amd64'],
    ['aarch64', 'arm64'],
    ['amd64', 'amd64'],
  ])('%s is %s', (a, want) => expect(dockerArch(a)).toBe(want));

  it.each([
    [3_240_000_000, '3.2 GB'],
    [512_400_000, '512 MB'],
    [1200, '1 kB'],
  ])('%d bytes read %s', (n, want) => expect(formatBytes(n)).toBe(want));

  it('says unknown, with why, rather than guess', () => {
    expect(sizeText(null, 'ghcr.io wants a login')).toBe('size unknown (ghcr.io wants a login)');
    expect(sizeText(facts({ compressedBytes: null }))).toBe('size unknown');
    expect(sizeText(facts())).toBe('3.2 GB compressed (docker.io)');
  });
});

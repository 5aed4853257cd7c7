import { describe, expect, it } from 'vitest';
import { isLoopbackRegistry, parseImageRef, registryBaseUrl, type ImageRef } from './image-ref';

const SHA = `sha256:${'ab'.repeat(32)}`;

describe('parseImageRef', () => {
  it.each<[string, Partial<ImageRef>]>([
    ['ubuntu', { registry: 'docker.io', repository: 'library/ubuntu', reference: 'latest' }],
    ['ubuntu:22.04', { registry: 'docker.io', repository: 'library/ubuntu', reference: '22.04' }],
    [
      'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime',
      {
        registry: 'docker.io',
        repository: 'pytorch/pytorch',
        reference: '2.5.1-cuda12.4-cudnn9-runtime',
      },
    ],
    [
      'nvcr.io/nvidia/pytorch:24.10-py3',
      { registry: 'nvcr.io', repository: 'nvidia/pytorch', reference: '24.10-py3' },
    ],
    [
      '127.0.0.1:5000/lab/nonroot:1',
      { registry: '127.0.0.1:5000', repository: 'lab/nonroot', reference: '1' },
    ],
    ['localhost/img', { registry: 'localhost', repository: 'img', reference: 'latest' }],
    [
      `ghcr.io/lab/img@${SHA}`,
      { registry: 'ghcr.io', repository: 'lab/img', reference: SHA, isDigest: true },
    ],
    [
      `ghcr.io/lab/img:v1@${SHA}`,
      { registry: 'ghcr.io', repository: 'lab/img', reference: SHA, isDigest: true },
    ],
    [
      '  runpod/base:0.6.2-cuda12.4.1 ',
      { repository: 'runpod/base', reference: '0.6.2-cuda12.4.1' },
    ],
  ])('%s', (text, want) => {
    expect(parseImageRef(text)).toMatchObject(want);
  });

  it.each([
    ['', 'empty'],
    ['py torch', 'space'],
    ['PyTorch/pytorch', 'not a valid name'],
    ['pytorch/pytorch:', 'not a valid tag'],
    ['img@sha256:xyz', 'not a digest'],
    ['ghcr.io/', 'not a valid name'],
  ])('refuses %j (%s)', (text, words) => {
    const r = parseImageRef(text);
    expect('problem' in r && r.problem).toContain(words);
  });
});

describe('registries', () => {
  it.each([
    ['127.0.0.1:5000', true],
    ['localhost', true],
    ['[::1]:80', true],
    ['ghcr.io', false],
    ['docker.io', false],
  ])('%s is loopback: %s', (r, want) => expect(isLoopbackRegistry(r)).toBe(want));

  it.each([
    ['ubuntu', 'https://registry-1.docker.io'],
    ['nvcr.io/nvidia/pytorch:24.10-py3', 'https://nvcr.io'],
    ['127.0.0.1:5000/lab/x', 'http://127.0.0.1:5000'],
  ])('%s is served by %s', (text, url) => {
    expect(registryBaseUrl(parseImageRef(text) as ImageRef)).toBe(url);
  });
});

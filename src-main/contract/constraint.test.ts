import { describe, expect, it } from 'vitest';
import {
  ConstraintSyntaxError,
  parseConstraint,
  parseQuantity,
  satisfies,
  unmet,
  unmetText,
} from './constraint';

const GiB = 1024 ** 3;
// An A100 node as the agent probes it (the capability keys docs/agent-protocol.md lists).
const caps = {
  os: 'linux',
  arch: 'x64',
  'cpu.cores': 32,
  'mem.total': 128 * GiB,
  'gpu.count': 2,
  'gpu.model': 'NVIDIA A100',
  'gpu.vram': 85899345920,
  'gpu.vram.max': 42949672960,
  'gpu.cuda': '12.4',
  'node.version': 'v20.11.0',
  'python.version': '3.12.1',
  site: 'building-7',
};

describe('parseConstraint', () => {
  it.each([
    ['gpu.count >= 1', { key: 'gpu.count', op: '>=', value: '1' }],
    ['gpu.vram>=16GB', { key: 'gpu.vram', op: '>=', value: '16GB' }],
    ['os == linux', { key: 'os', op: '==', value: 'linux' }],
    ['site != building-7', { key: 'site', op: '!=', value: 'building-7' }],
    ['python.version < 3.13', { key: 'python.version', op: '<', value: '3.13' }],
    ['cuda >= 12.1', { key: 'gpu.cuda', op: '>=', value: '12.1' }], // an alias
  ])('%s', (text, want) => {
    expect(parseConstraint(text)).toEqual({ text, ...want });
  });

  it.each([
    ['gpu.vram 24GB', /no operator/],
    ['>= 24GB', /no operator/],
    ['gpu vram >= 24GB', /"gpu vram" is not a capability key/],
    ['gpu.vram >=', /no value after >=/],
    ['gpu.vram >> 24GB', /no value after >/],
  ])('refuses %j, naming the form', (text, why) => {
    expect(() => parseConstraint(text)).toThrow(ConstraintSyntaxError);
    expect(() => parseConstraint(text)).toThrow(why);
    expect(() => parseConstraint(text)).toThrow(/e\.g\. "gpu\.vram >= 24GB"/);
  });
});

describe('parseQuantity', () => {
  it.each([
    ['16GB', 16e9],
    ['512MB', 512e6],
    ['1TB', 1e12],
    ['1.5GiB', 1.5 * GiB],
    ['16G', 16 * GiB],
    ['24', 24],
    [7, 7],
    ['3.11', null], // a version
    ['linux', null],
    ['16XB', null],
  ])('%j → %j', (v, want) => expect(parseQuantity(v)).toBe(want));
});

describe('satisfies (the seed: byte suffixes, versions by segment, text, missing keys fail)', () => {
  it.each([
    ['gpu.count >= 1', true],
    ['gpu.count > 2', false],
    ['gpu.vram >= 16GB', true],
    ['gpu.vram >= 80GB', true],
    ['gpu.vram > 80GiB', false],
    ['gpu.vram > 80GB', true], // 80 GiB is more than 80·10^9 bytes
    ['gpu.vram.max >= 48GB', false],
    ['gpu.vram.max >= 40GB', true], // 40 GiB is more than 40·10^9 bytes
    ['gpu.vram.max >= 41GiB', false],
    ['mem.total >= 32GB', true],
    ['os == linux', true],
    ['os != linux', false],
    ['python.version >= 3.11', true],
    ['python.version >= 3.9', true], // 12 > 9 by segment, not as text
    ['python.version >= 3.13', false],
    ['python.version == 3.12.1', true],
    ['python.version == 3.12.1.0', true], // missing segments are 0
    ['cuda >= 12.1', true],
    ['cuda >= 12.10', false],
    ['node.version >= 18', true], // a leading v is a version's
    ['site == building-7', true],
    ['site < building-8', true], // text orders as text
    ['gpu.model == NVIDIA A100', true],
    ['julia.version >= 1.10', false], // a key the node does not have fails
    ['julia.version != 1.10', false], // even a "not equal"
  ])('%s → %s', (text, want) => {
    expect(satisfies(parseConstraint(text), caps)).toBe(want);
  });

  it('a "24 GB" card (24564 MiB, as nvidia-smi reports it) meets gpu.vram >= 24GB', () => {
    const rtx4090 = { 'gpu.vram': 24564 * 1024 ** 2 };
    expect(satisfies(parseConstraint('gpu.vram >= 24GB'), rtx4090)).toBe(true);
    expect(satisfies(parseConstraint('gpu.vram >= 24GiB'), rtx4090)).toBe(false);
  });

  it('names what a node lacks, with what it has', () => {
    const failed = unmet(
      ['gpu.vram >= 100GB', 'os == linux', 'julia.version >= 1.10'].map(parseConstraint),
      caps,
    );
    expect(unmetText(failed)).toBe(
      'gpu.vram >= 100GB (the node has gpu.vram = 85899345920); julia.version >= 1.10 (the node has no julia.version)',
    );
  });
});

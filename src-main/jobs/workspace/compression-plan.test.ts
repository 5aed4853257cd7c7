import { describe, expect, it } from 'vitest';
import {
  type CompressionPlan,
  DEFAULT_CPU,
  estimateSeconds,
  type PlanInput,
  planCompression,
} from './compression-plan';

const MB = 1e6;
/** The bench's workspace: a repository (2.6 MB of code), 50 MiB of CSV, 50 MiB of noise.
 *  Brotli q1 takes the text to ~0.24: 40 MB saved of the 55 MB tried. */
const mixed = { totalBytes: 108.5 * MB, savedBytes: 40 * MB, triedBytes: 55 * MB };
const noise = { totalBytes: 100 * MB, savedBytes: 0, triedBytes: 0 };
const code = { totalBytes: 3 * MB, savedBytes: 2.2 * MB, triedBytes: 3 * MB };

const input = (over: Partial<PlanInput>): PlanInput => ({
  setting: 'auto',
  isLocal: false,
  hasDecoder: true,
  saving: mixed,
  link: undefined,
  ...over,
});

const bound = (bytesPerS: number) => ({ bytesPerS, isLinkBound: true });

describe('planCompression', () => {
  it.each<[string, Partial<PlanInput>, Pick<CompressionPlan, 'isEncoded' | 'why'>]>([
    // What is never compressed.
    ['off', { setting: 'off' }, { isEncoded: false, why: 'off' }],
    ['a local node', { isLocal: true }, { isEncoded: false, why: 'local' }],
    ['an older agent', { hasDecoder: false }, { isEncoded: false, why: 'old_agent' }],
    ['random bytes only', { saving: noise }, { isEncoded: false, why: 'incompressible' }],
    ['on, over loopback', { setting: 'on', link: bound(2e9) }, { isEncoded: true, why: 'on' }],
    // An endpoint not measured yet: compressed at the fast quality, measured as it goes.
    ['unmeasured', {}, { isEncoded: true, why: 'unmeasured' }],
    // Measured links (bytes per second the endpoint's pushes achieved).
    ['100 Mbit/s (11.8 MB/s), any round trip', { link: bound(11.8 * MB) }, enc('pays')],
    ['a 20 Mbit/s uplink', { link: bound(2.4 * MB) }, enc('pays')],
    ['a code-only push over 100 Mbit/s', { saving: code, link: bound(11.8 * MB) }, enc('pays')],
    ['500 Mbit/s', { link: bound(60 * MB) }, enc('pays')],
    ['1 Gbit/s (~118 MB/s)', { link: bound(118 * MB) }, plain()],
    ['loopback (~250 MB/s)', { link: bound(250 * MB) }, plain()],
    ['10 Gbit/s', { link: bound(1.1e9) }, plain()],
    // The last push waited on this machine, not the link: compressing adds to that.
    [
      'a slow rate this machine set (loopback under load)',
      { link: { bytesPerS: 10 * MB, isLinkBound: false } },
      { isEncoded: false, why: 'cpu_bound' },
    ],
  ])('%s', (_name, over, want) => {
    expect(planCompression(input(over))).toMatchObject(want);
  });

  it('weighs the CPU: a slow compressor does not pay on a link it cannot keep up with', () => {
    const slowCpu = { compressBytesPerS: 20 * MB, parallel: 1, decodeBytesPerS: 400 * MB };
    const at = (rate: number) => planCompression(input({ link: bound(rate), cpu: slowCpu }));
    expect(at(5 * MB).isEncoded).toBe(true);
    expect(at(40 * MB).isEncoded).toBe(false);
  });

  it('estimates seconds as the bytes on the link or the compressions, plus decoding', () => {
    const s = estimateSeconds(mixed, 11.8 * MB, DEFAULT_CPU);
    expect(s.plainS).toBeCloseTo(108.5 / 11.8, 3);
    expect(s.encodedS).toBeCloseTo(68.5 / 11.8 + 108.5 / 400, 3);
  });
});

function enc(why: CompressionPlan['why']) {
  return { isEncoded: true, why };
}
function plain() {
  return { isEncoded: false, why: 'link_faster' as const };
}

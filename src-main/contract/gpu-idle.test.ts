import { describe, expect, it } from 'vitest';
import { type GpuIdleFired, gpuIdleFiredText, gpuIdleRuleText } from './gpu-idle';

describe('GPU idle rule words', () => {
  it.each([
    [
      { belowPct: 10, forMs: 1_800_000, then: 'stop' } as const,
      'GPU idle rule: stop after 30m under 10%',
    ],
    [
      { belowPct: 5, forMs: 5_400_000, then: 'teardown' } as const,
      'GPU idle rule: teardown after 1h30m under 5%',
    ],
    [
      { belowPct: 2.5, forMs: 3_000, then: 'notify' } as const,
      'GPU idle rule: notify after 3s under 2.5%',
    ],
  ])('%j', (rule, text) => {
    expect(gpuIdleRuleText(rule)).toBe(text);
  });

  const fired = (did: GpuIdleFired['did']): GpuIdleFired => ({
    at: 0,
    rule: { belowPct: 10, forMs: 1_800_000, then: 'stop' },
    idleForMs: 1_800_000,
    did,
    reason: 'GPU idle rule: every GPU under 10% for 30m while the job ran',
  });
  it.each([
    [
      'notified',
      'fired: every GPU under 10% for 30m while the job ran — notified (the job went on)',
    ],
    ['stopped_job', 'fired: every GPU under 10% for 30m while the job ran — stopped the job'],
    ['tearing_down', 'fired: every GPU under 10% for 30m while the job ran — tore the node down'],
  ] as const)('%s', (did, text) => {
    expect(gpuIdleFiredText(fired(did))).toBe(text);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_FORM, formToFilter } from './offer-filter';

describe('offer filter form', () => {
  it('the defaults search for what the provider calls safe, written out', () => {
    expect(formToFilter(DEFAULT_FORM)).toEqual({
      filter: { gpuCount: 1, minReliability: 0.9, minDownMbps: 128, diskGb: 32, verified: true },
      errors: {},
    });
  });

  it('maps every field to the contract, leaving empty ones out', () => {
    const { filter } = formToFilter({
      ...DEFAULT_FORM,
      gpu: ' RTX 4090, A100 SXM4 ',
      gpuCount: '2',
      minVramGb: '24',
      maxPrice: '0.8',
      minReliabilityPct: '',
      minUpMbps: '100',
      verified: false,
      region: 'Europe',
      includeFailedHosts: true,
    });
    expect(filter).toEqual({
      gpu: 'RTX 4090, A100 SXM4',
      gpuCount: 2,
      minVramGb: 24,
      maxPrice: 0.8,
      minDownMbps: 128,
      minUpMbps: 100,
      diskGb: 32,
      verified: false,
      region: 'Europe',
      includeFailedHosts: true,
    });
  });

  it('takes country codes, and refuses what is not one', () => {
    expect(
      formToFilter({ ...DEFAULT_FORM, region: 'codes', regionCodes: 'us, ca' }).filter?.region,
    ).toBe('US,CA');
    const bad = formToFilter({ ...DEFAULT_FORM, region: 'codes', regionCodes: 'USA' });
    expect(bad.filter).toBeNull();
    expect(bad.errors.regionCodes).toMatch(/two-letter/i);
  });

  it('says what is wrong beside each field', () => {
    const { filter, errors } = formToFilter({
      ...DEFAULT_FORM,
      gpuCount: '1.5',
      minVramGb: 'lots',
      minReliabilityPct: '120',
      diskGb: '4',
    });
    expect(filter).toBeNull();
    expect(errors).toEqual({
      gpuCount: 'GPU count must be a whole number',
      minVramGb: 'VRAM must be a number',
      minReliabilityPct: 'Reliability must be between 0 and 100',
      diskGb: 'Disk must be between 8 and 8192',
    });
  });
});

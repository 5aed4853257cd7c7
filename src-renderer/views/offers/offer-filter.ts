import { OfferFilter, type OfferFilterInput } from '../../../src-main/contract';

/** The filter form as typed: strings, so a half-typed number is not lost. */
export interface FilterForm {
  gpu: string;
  gpuCount: string;
  minVramGb: string;
  maxPrice: string;
  /** Percent, 0–100 (the contract takes 0–1). */
  minReliabilityPct: string;
  minDownMbps: string;
  minUpMbps: string;
  diskGb: string;
  verified: boolean;
  /** '' for any, a named region, or 'codes' for `regionCodes`. */
  region: string;
  regionCodes: string;
  includeFailedHosts: boolean;
}

export type FilterField = keyof FilterForm;

/** The provider's safe defaults, written out so the person sees what is searched. */
export const DEFAULT_FORM: FilterForm = {
  gpu: '',
  gpuCount: '1',
  minVramGb: '',
  maxPrice: '',
  minReliabilityPct: '90',
  minDownMbps: '128',
  minUpMbps: '',
  diskGb: '32',
  verified: true,
  region: '',
  regionCodes: '',
  includeFailedHosts: false,
};

/** Named regions the provider knows (vast.py's REGIONS). */
export const REGIONS = [
  'North America',
  'South America',
  'Europe',
  'Asia',
  'Oceania',
  'Africa',
] as const;

/** Contract field → form field, for errors the contract itself reports. */
const FIELD_OF: Partial<Record<keyof OfferFilterInput, FilterField>> = {
  gpu: 'gpu',
  gpuCount: 'gpuCount',
  minVramGb: 'minVramGb',
  maxPrice: 'maxPrice',
  minReliability: 'minReliabilityPct',
  minDownMbps: 'minDownMbps',
  minUpMbps: 'minUpMbps',
  diskGb: 'diskGb',
  region: 'regionCodes',
};

type Errors = Partial<Record<FilterField, string>>;

function number(
  form: FilterForm,
  field: FilterField,
  errors: Errors,
  opts: { min: number; max: number; int?: boolean; what: string },
): number | undefined {
  const text = String(form[field]).trim();
  if (text === '') return undefined;
  const v = Number(text);
  if (!Number.isFinite(v)) errors[field] = `${opts.what} must be a number`;
  else if (opts.int && !Number.isInteger(v)) errors[field] = `${opts.what} must be a whole number`;
  else if (v < opts.min || v > opts.max)
    errors[field] = `${opts.what} must be between ${opts.min} and ${opts.max}`;
  else return v;
  return undefined;
}

/** The form as the contract's OfferFilter, or the errors to show beside each field. Empty
 *  fields are left out (the provider's safe default applies). */
export function formToFilter(form: FilterForm): {
  filter: OfferFilterInput | null;
  errors: Errors;
} {
  const errors: Errors = {};
  const f: OfferFilterInput = {};
  const gpu = form.gpu.trim();
  if (gpu) f.gpu = gpu;
  f.gpuCount =
    number(form, 'gpuCount', errors, { min: 1, max: 16, int: true, what: 'GPU count' }) ?? 1;
  f.minVramGb = number(form, 'minVramGb', errors, { min: 0.1, max: 1024, what: 'VRAM' });
  f.maxPrice = number(form, 'maxPrice', errors, { min: 0.001, max: 1000, what: 'The price cap' });
  const rel = number(form, 'minReliabilityPct', errors, { min: 0, max: 100, what: 'Reliability' });
  if (rel !== undefined) f.minReliability = rel / 100;
  f.minDownMbps = number(form, 'minDownMbps', errors, { min: 1, max: 100_000, what: 'Download' });
  f.minUpMbps = number(form, 'minUpMbps', errors, { min: 1, max: 100_000, what: 'Upload' });
  f.diskGb = number(form, 'diskGb', errors, { min: 8, max: 8192, int: true, what: 'Disk' });
  f.verified = form.verified;
  if (form.region === 'codes') {
    const codes = form.regionCodes.trim();
    if (codes === '') errors.regionCodes = 'Type country codes, e.g. US,CA';
    else if (!/^[A-Za-z]{2}(\s*,\s*[A-Za-z]{2})*$/.test(codes))
      errors.regionCodes = 'Two-letter country codes separated by commas, e.g. US,CA';
    else f.region = codes.toUpperCase().replace(/\s+/g, '');
  } else if (form.region) {
    f.region = form.region;
  }
  if (form.includeFailedHosts) f.includeFailedHosts = true;
  for (const k of Object.keys(f) as (keyof OfferFilterInput)[]) if (f[k] === undefined) delete f[k];
  // The contract has the last word (a bound changed there shows up here, by field).
  const parsed = OfferFilter.safeParse(f);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = FIELD_OF[issue.path[0] as keyof OfferFilterInput] ?? 'gpu';
      errors[field] ??= issue.message;
    }
  return Object.keys(errors).length > 0 ? { filter: null, errors } : { filter: f, errors };
}

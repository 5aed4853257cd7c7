import { useState } from 'react';
import type { OfferFilterInput } from '../../../src-main/contract';
import { SearchIcon, Spinner } from '../../shell/icons';
import { formToFilter, REGIONS, type FilterField, type FilterForm } from './offer-filter';
import { useOffersUi } from './offers-store';

/** GPU names as Vast.ai spells them (the others' names are matched to these); a suggestion
 *  list, any name can be typed. */
const GPU_SUGGESTIONS = [
  'RTX 5090',
  'RTX 4090',
  'RTX 3090',
  'RTX A6000',
  'RTX 6000Ada',
  'L40S',
  'L40',
  'A40',
  'A100 PCIE',
  'A100 SXM4',
  'H100 PCIE',
  'H100 SXM',
  'H100 NVL',
  'H200',
];

type Errors = Partial<Record<FilterField, string>>;

function Field(props: {
  label: string;
  field: FilterField;
  errors: Errors;
  hint?: string;
  className?: string;
  children: React.ReactNode;
}): React.JSX.Element {
  const error = props.errors[props.field];
  return (
    <div className={`field ${props.className ?? ''} ${error ? 'of-has-error' : ''}`}>
      <label htmlFor={`of-${props.field}`}>{props.label}</label>
      {props.children}
      {error ? (
        <span className="of-field-error" role="alert" data-testid={`offer-error-${props.field}`}>
          {error}
        </span>
      ) : (
        props.hint && <span className="hint">{props.hint}</span>
      )}
    </div>
  );
}

export function OfferFilters(props: {
  isSearching: boolean;
  /** The form differs from the last search: its results are not what the form says. */
  isStale: boolean;
  diskDefault: number | null;
  onSearch: (filter: OfferFilterInput) => void;
  /** The marketplace boxes above the fields. */
  markets: React.JSX.Element;
}): React.JSX.Element {
  const form = useOffersUi((s) => s.form);
  const patch = useOffersUi((s) => s.patchForm);
  const reset = useOffersUi((s) => s.reset);
  const [errors, setErrors] = useState<Errors>({});

  const text = (field: FilterField, extra: React.InputHTMLAttributes<HTMLInputElement> = {}) => ({
    id: `of-${field}`,
    className: 'input',
    value: String(form[field]),
    'aria-invalid': errors[field] ? true : undefined,
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      patch({ [field]: e.target.value } as Partial<FilterForm>);
      if (errors[field]) setErrors({ ...errors, [field]: undefined });
    },
    ...extra,
  });

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const { filter, errors: found } = formToFilter(form);
    setErrors(found);
    if (filter) props.onSearch(filter);
  };

  return (
    <form
      className="card of-offer-filters"
      onSubmit={submit}
      data-testid="offer-filters"
      noValidate
    >
      {props.markets}
      <div className="of-filter-grid">
        <Field
          label="GPU"
          field="gpu"
          errors={errors}
          hint="Any, or names: RTX 4090, A100 SXM4"
          className="of-span-2"
        >
          <input
            {...text('gpu', { placeholder: 'any GPU', list: 'gpu-names', autoComplete: 'off' })}
            data-testid="offer-gpu"
          />
          <datalist id="gpu-names">
            {GPU_SUGGESTIONS.map((g) => (
              <option key={g} value={g} />
            ))}
          </datalist>
        </Field>
        <Field label="GPUs per machine" field="gpuCount" errors={errors}>
          <input {...text('gpuCount', { inputMode: 'numeric' })} data-testid="offer-gpu-count" />
        </Field>
        <Field label="VRAM per GPU, min" field="minVramGb" errors={errors} hint="GB">
          <input
            {...text('minVramGb', { inputMode: 'decimal', placeholder: 'any' })}
            data-testid="offer-vram"
          />
        </Field>
        <Field label="Price cap, all-in" field="maxPrice" errors={errors} hint="$/h incl. disk">
          <input
            {...text('maxPrice', { inputMode: 'decimal', placeholder: 'no cap' })}
            data-testid="offer-max-price"
          />
        </Field>
        <Field label="Disk" field="diskGb" errors={errors} hint="GB; priced in">
          <input {...text('diskGb', { inputMode: 'numeric' })} data-testid="offer-disk" />
        </Field>
        <Field label="Reliability, min" field="minReliabilityPct" errors={errors} hint="%">
          <input
            {...text('minReliabilityPct', { inputMode: 'decimal' })}
            data-testid="offer-reliability"
          />
        </Field>
        <Field label="Download, min" field="minDownMbps" errors={errors} hint="Mb/s">
          <input {...text('minDownMbps', { inputMode: 'numeric' })} data-testid="offer-down" />
        </Field>
        <Field label="Upload, min" field="minUpMbps" errors={errors} hint="Mb/s">
          <input
            {...text('minUpMbps', { inputMode: 'numeric', placeholder: 'any' })}
            data-testid="offer-up"
          />
        </Field>
        <Field
          label="Region"
          field="regionCodes"
          errors={errors}
          hint={form.region === 'codes' ? 'Country codes: US,CA' : undefined}
          className="of-span-3"
        >
          <div className="row">
            <select
              className="select"
              id="of-region"
              value={form.region}
              onChange={(e) => patch({ region: e.target.value })}
              data-testid="offer-region"
            >
              <option value="">Anywhere</option>
              {REGIONS.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
              <option value="codes">Countries…</option>
            </select>
            {form.region === 'codes' && (
              <input
                {...text('regionCodes', { placeholder: 'US,CA', autoFocus: true })}
                id="of-regionCodes"
                data-testid="offer-region-codes"
              />
            )}
          </div>
        </Field>
      </div>
      <div className="of-filter-foot">
        <label className="of-check">
          <input
            type="checkbox"
            checked={form.verified}
            onChange={(e) => patch({ verified: e.target.checked })}
            data-testid="offer-verified"
          />
          Verified machines only
        </label>
        <label
          className="of-check"
          title="Vast.ai hosts whose machines failed to boot for you are hidden by default"
        >
          <input
            type="checkbox"
            checked={form.includeFailedHosts}
            onChange={(e) => patch({ includeFailedHosts: e.target.checked })}
          />
          Include hosts that failed to boot for you
        </label>
        <span className="grow" />
        {props.isStale && !props.isSearching && (
          <span className="of-filter-stale" data-testid="offer-filter-stale">
            The filter changed: Search to apply it
          </span>
        )}
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => {
            reset(props.diskDefault);
            setErrors({});
          }}
        >
          Reset filters
        </button>
        <button
          type="submit"
          className="btn btn-primary of-search-btn"
          data-testid="offer-search"
          disabled={props.isSearching}
        >
          {props.isSearching ? <Spinner /> : <SearchIcon />}
          {props.isSearching ? 'Searching…' : 'Search'}
        </button>
      </div>
    </form>
  );
}

import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { commands, type SettingsView } from '../../../src-main/contract';
import { call } from '../../api/backend';
import { keys } from '../../api/queries';
import { toast } from '../../components/toasts';
import {
  asForm,
  fieldsOf,
  patchOf,
  type DefaultField,
  type DefaultKey,
  type DefaultsForm,
} from './defaults-fields';
import { errorByField, issuesByField, type FieldErrors } from './field-errors';

const GROUPS = [
  { id: 'boot', title: 'Boot and cancel' },
  {
    id: 'policy',
    title: 'Lease policy',
    sub: 'Each node enforces these itself, so a crashed laptop or a lost network never leaves a machine billing. A run can ask for others.',
  },
] as const;

/** Deadlines, retries, grace, disk and the lease policy: what new runs start with. */
export function DefaultsSection({ settings }: { settings: SettingsView }): React.JSX.Element {
  const qc = useQueryClient();
  const saved = settings.defaults;
  const fields = fieldsOf(saved);
  const keysShown = fields.map((f) => f.key);
  const [form, setForm] = useState<DefaultsForm>(() => asForm(saved));
  const [errors, setErrors] = useState<FieldErrors<DefaultKey>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  const changed = fields.filter((f) => (form[f.key] ?? '').trim() !== String(saved[f.key]));

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    const { patch, notNumbers } = patchOf(form, saved);
    // The contract's own bounds, checked here so each message sits beside its field.
    const parsed = commands['settings.setDefaults'].input.safeParse(patch);
    const checked = parsed.success
      ? { fields: {}, general: null }
      : issuesByField(parsed.error.issues, keysShown);
    const all: FieldErrors<DefaultKey> = { ...checked.fields };
    for (const k of notNumbers) all[k] = 'a number, please';
    setErrors(all);
    setGeneral(checked.general);
    if (Object.keys(all).length > 0 || checked.general) return;
    setBusy(true);
    try {
      const view = await call('settings.setDefaults', patch);
      qc.setQueryData(keys.settings, view);
      setForm(asForm(view.defaults));
      toast('Defaults saved; new runs use them');
    } catch (err) {
      const r = errorByField(err, keysShown);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };

  const edit = (key: DefaultKey, value: string) => {
    setForm({ ...form, [key]: value });
    setErrors({ ...errors, [key]: undefined });
  };

  return (
    <section className="card set-card" data-testid="settings-defaults">
      <header className="card-head">Defaults for new runs</header>
      <form className="card-body" onSubmit={(e) => void save(e)} noValidate>
        {GROUPS.map((g) => {
          const mine = fields.filter((f) => f.group === g.id);
          if (mine.length === 0) return null;
          return (
            <fieldset key={g.id} className="set-group">
              <legend>{g.title}</legend>
              {'sub' in g && <p className="set-group-sub">{g.sub}</p>}
              <div className="set-defaults-grid">
                {mine.map((f) => (
                  <DefaultInput
                    key={f.key}
                    field={f}
                    value={form[f.key] ?? ''}
                    error={errors[f.key]}
                    onChange={(v) => edit(f.key, v)}
                  />
                ))}
              </div>
            </fieldset>
          );
        })}
        {general && (
          <div className="alert set-alert" role="alert">
            {general}
          </div>
        )}
        <div className="set-actions">
          <span className="faint">
            {changed.length > 0
              ? `${changed.length} unsaved change${changed.length === 1 ? '' : 's'}`
              : 'All saved'}
          </span>
          <span className="grow" />
          <button
            type="button"
            className="btn btn-ghost"
            disabled={changed.length === 0 || isBusy}
            onClick={() => {
              setForm(asForm(saved));
              setErrors({});
              setGeneral(null);
            }}
          >
            Revert
          </button>
          <button
            type="submit"
            className="btn btn-primary"
            disabled={changed.length === 0 || isBusy}
            data-testid="defaults-save"
          >
            {isBusy ? 'Saving…' : 'Save defaults'}
          </button>
        </div>
      </form>
    </section>
  );
}

function DefaultInput(props: {
  field: DefaultField;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}): React.JSX.Element {
  const { field: f, error } = props;
  const id = `def-${f.key}`;
  return (
    <div className={`field ${error ? 'set-has-error' : ''}`}>
      <label htmlFor={id}>{f.label}</label>
      {f.choices ? (
        <select
          id={id}
          className="select set-choice"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          data-testid={`default-${f.key}`}
        >
          {f.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      ) : (
        <div className="set-unit-input">
          <input
            id={id}
            className="input"
            inputMode="decimal"
            value={props.value}
            aria-invalid={error ? true : undefined}
            data-testid={`default-${f.key}`}
            onChange={(e) => props.onChange(e.target.value)}
          />
          <span className="set-unit">{f.unit}</span>
        </div>
      )}
      {error ? (
        <span className="set-field-error" role="alert" data-testid={`default-error-${f.key}`}>
          {error}
        </span>
      ) : (
        <span className="hint">
          {f.hint} {f.range && <span className="set-range">{f.range}</span>}
        </span>
      )}
    </div>
  );
}

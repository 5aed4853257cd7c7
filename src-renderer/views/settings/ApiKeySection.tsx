import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { SettingsView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys } from '../../api/queries';
import { Dialog } from '../../components/Dialog';
import { toast } from '../../components/toasts';
import { MARKET, MARKETPLACES, type Marketplace } from '../../lib/marketplaces';

const SOURCE_TEXT = {
  keychain: 'stored in the OS keychain',
  file: 'stored in a file only you can read (secrets.json, mode 0600, in the data folder)',
  env: (env: string) =>
    `read from ${env} in the environment Tender started in; a key saved here takes precedence`,
} as const;

/** The marketplace keys, one row each: write-only. The UI learns whether each is set and
 *  where from, never the key. */
export function ApiKeySection({ settings }: { settings: SettingsView }): React.JSX.Element {
  const setCount = MARKETPLACES.filter((m) => settings.secrets[MARKET[m].secret].isSet).length;
  return (
    <section className="card set-card" data-testid="settings-api-key">
      <header className="card-head">
        Marketplace API keys
        <span className="grow" />
        <span className="faint">
          {setCount} of {MARKETPLACES.length} set
        </span>
      </header>
      <div className="card-body">
        <p className="set-lede">
          Each key lets Tender search that marketplace’s offers and rent its machines; any one will
          do. Keys are write-only here: never shown again, and never in a log or on a node.
        </p>
        {MARKETPLACES.map((m) => (
          <ApiKeyRow key={m} market={m} state={settings.secrets[MARKET[m].secret]} />
        ))}
      </div>
    </section>
  );
}

function ApiKeyRow(props: {
  market: Marketplace;
  state: SettingsView['secrets']['vastaiApiKey'];
}): React.JSX.Element {
  const qc = useQueryClient();
  const m = props.market;
  const { name, secret, env, keyWhere } = MARKET[m];
  const { isSet, source } = props.state;
  const [value, setValue] = useState('');
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [isForgetting, setForgetting] = useState(false);

  const store = async (next: string | null) => {
    setBusy(true);
    setError(null);
    try {
      const view = await call('settings.setSecret', { name: secret, value: next });
      qc.setQueryData(keys.settings, view);
      // What a key gates: the offers and the ledger's view of the provider.
      void qc.invalidateQueries({ queryKey: ['offers'] });
      void qc.invalidateQueries({ queryKey: ['cheapest-offer'] });
      void qc.invalidateQueries({ queryKey: keys.status });
      setValue('');
      toast(next === null ? `${name} API key forgotten` : `${name} API key saved`);
      return true;
    } catch (err) {
      setError(describeError(err));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const save = (e: React.FormEvent) => {
    e.preventDefault();
    const key = value.trim();
    if (key === '') return setError(`Paste the key first (${keyWhere}).`);
    if (key.length > 4096)
      return setError('That is longer than any API key (4096 characters at most).');
    void store(key);
  };

  const where = source === 'env' ? SOURCE_TEXT.env(env) : source ? SOURCE_TEXT[source] : null;
  return (
    <div className="set-key-row" data-testid={`api-key-${m}`}>
      <div className="set-key-head">
        <strong>{name}</strong>
        {isSet ? (
          <span className="badge green" data-testid="api-key-state" data-set="true">
            set
          </span>
        ) : (
          <span className="badge amber" data-testid="api-key-state" data-set="false">
            not set
          </span>
        )}
        <span className="faint set-key-source" data-testid="api-key-source">
          {isSet && where ? (
            <>A key is {where}.</>
          ) : (
            <>
              No key: Tender cannot search or rent {name} machines. Create one in the {keyWhere}.
            </>
          )}
        </span>
      </div>
      <form className="set-key-form" onSubmit={save} autoComplete="off">
        <div className={`field grow ${error ? 'set-has-error' : ''}`}>
          <label htmlFor={`${m}-key`}>{isSet ? 'Replace the key' : 'API key'}</label>
          <input
            id={`${m}-key`}
            className="input mono"
            type="password"
            autoComplete="new-password"
            spellCheck={false}
            placeholder={
              isSet ? 'paste a new key to replace the stored one' : `paste your ${name} API key`
            }
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              setError(null);
            }}
            data-testid="api-key-input"
            aria-invalid={error ? true : undefined}
          />
          {error ? (
            <span className="set-field-error" role="alert">
              {error}
            </span>
          ) : (
            <span className="hint">
              {keyWhere}; or set {env} before starting Tender
            </span>
          )}
        </div>
        <button
          className="btn btn-primary"
          type="submit"
          disabled={isBusy || value.trim() === ''}
          data-testid="api-key-save"
        >
          Save
        </button>
        {isSet && source !== 'env' && (
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => setForgetting(true)}
            disabled={isBusy}
            data-testid="api-key-forget"
          >
            Forget
          </button>
        )}
      </form>
      {isForgetting && (
        <Dialog
          title={`Forget the ${name} API key?`}
          onClose={() => setForgetting(false)}
          busy={isBusy}
          actions={
            <>
              <button className="btn" onClick={() => setForgetting(false)} disabled={isBusy}>
                Cancel
              </button>
              <button
                className="btn btn-danger"
                data-testid="api-key-forget-confirm"
                disabled={isBusy}
                onClick={() => void store(null).then((ok) => ok && setForgetting(false))}
              >
                Forget the key
              </button>
            </>
          }
        >
          Tender deletes the stored key. Leases already rented keep running and still bill, but
          Tender cannot destroy them on {name} without a key — tear them down first, or paste the
          key again before they end.
        </Dialog>
      )}
    </div>
  );
}

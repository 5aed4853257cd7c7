import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { SettingsView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys } from '../../api/queries';
import { Dialog } from '../../components/Dialog';
import { toast } from '../../components/toasts';

const SOURCE_TEXT = {
  keychain: 'stored in the OS keychain',
  file: 'stored in a file only you can read (secrets.json, mode 0600, in the data folder)',
  env: 'read from TENDER_VASTAI_API_KEY in the environment Tender started in; a key saved here takes precedence',
} as const;

/** The Vast.ai key: write-only. The UI learns whether it is set and where from, never it. */
export function ApiKeySection({ settings }: { settings: SettingsView }): React.JSX.Element {
  const qc = useQueryClient();
  const { isSet, source } = settings.secrets.vastaiApiKey;
  const [value, setValue] = useState('');
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [isForgetting, setForgetting] = useState(false);

  const store = async (next: string | null) => {
    setBusy(true);
    setError(null);
    try {
      const view = await call('settings.setSecret', { name: 'vastaiApiKey', value: next });
      qc.setQueryData(keys.settings, view);
      // What a key gates: the offers and the ledger's view of the provider.
      void qc.invalidateQueries({ queryKey: ['offers'] });
      void qc.invalidateQueries({ queryKey: keys.status });
      setValue('');
      toast(next === null ? 'Vast.ai API key forgotten' : 'Vast.ai API key saved');
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
    if (key === '') return setError('Paste the key first (Vast.ai console → Account → Keys).');
    if (key.length > 4096)
      return setError('That is longer than any API key (4096 characters at most).');
    void store(key);
  };

  return (
    <section className="card set-card" data-testid="settings-api-key">
      <header className="card-head">
        Vast.ai API key
        <span className="grow" />
        {isSet ? (
          <span className="badge green" data-testid="api-key-state" data-set="true">
            set
          </span>
        ) : (
          <span className="badge amber" data-testid="api-key-state" data-set="false">
            not set
          </span>
        )}
      </header>
      <div className="card-body">
        <p className="set-lede">
          {isSet && source ? (
            <>A key is {SOURCE_TEXT[source]}.</>
          ) : (
            <>
              No key yet: Tender cannot search offers or rent Vast.ai machines. Create one in the
              Vast.ai console under Account → Keys.
            </>
          )}{' '}
          The key is write-only here: it is never shown again, and never reaches a log or a node.
        </p>
        <form className="set-key-form" onSubmit={save} autoComplete="off">
          <div className={`field grow ${error ? 'set-has-error' : ''}`}>
            <label htmlFor="vast-key">{isSet ? 'Replace the key' : 'API key'}</label>
            <input
              id="vast-key"
              className="input mono"
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              placeholder={
                isSet ? 'paste a new key to replace the stored one' : 'paste your Vast.ai API key'
              }
              value={value}
              onChange={(e) => {
                setValue(e.target.value);
                setError(null);
              }}
              data-testid="api-key-input"
              aria-invalid={error ? true : undefined}
            />
            {error && (
              <span className="set-field-error" role="alert">
                {error}
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
      </div>
      {isForgetting && (
        <Dialog
          title="Forget the Vast.ai API key?"
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
          Tender cannot destroy them on Vast.ai without a key — tear them down first, or paste the
          key again before they end.
        </Dialog>
      )}
    </section>
  );
}

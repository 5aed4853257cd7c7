import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { webhookUrlProblem, type SettingsView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys } from '../../api/queries';
import { toast } from '../../components/toasts';

type Permission = NotificationPermission | 'unsupported';
const permissionNow = (): Permission =>
  'Notification' in window ? Notification.permission : 'unsupported';

/** Being told when a run ends, is outbid or nears its budget while nobody is looking: a
 *  desktop notification, and a POST to a webhook (Slack's incoming webhooks, or any URL
 *  that takes JSON), sent by the Tender that holds the ledger. */
export function NotifySection({ settings }: { settings: SettingsView }): React.JSX.Element {
  const qc = useQueryClient();
  const saved = settings.notify;
  const [url, setUrl] = useState(saved.webhookUrl ?? '');
  // Shown at once; put back if the save fails.
  const [isDesktopOn, setDesktopOn] = useState(saved.notifyDesktop);
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  const isWeb = settings.shell === 'web';
  const isChanged = url.trim() !== (saved.webhookUrl ?? '');

  const store = async (patch: { notifyDesktop?: boolean; webhookUrl?: string | null }) => {
    setBusy(true);
    try {
      const view = await call('settings.setNotify', patch);
      qc.setQueryData(keys.settings, view);
      return view;
    } catch (err) {
      setError(describeError(err));
      return null;
    } finally {
      setBusy(false);
    }
  };

  const toggleDesktop = async (on: boolean) => {
    setDesktopOn(on);
    const view = await store({ notifyDesktop: on });
    setDesktopOn(view ? view.notify.notifyDesktop : !on);
  };

  const saveUrl = async (e: React.FormEvent) => {
    e.preventDefault();
    const next = url.trim() === '' ? null : url.trim();
    const problem = next === null ? null : webhookUrlProblem(next);
    if (problem) return setError(problem);
    setError(null);
    const view = await store({ webhookUrl: next });
    if (view) {
      setUrl(view.notify.webhookUrl ?? '');
      toast(next === null ? 'Webhook removed' : 'Webhook saved');
    }
  };

  return (
    <section className="card set-card" data-testid="settings-notify">
      <header className="card-head">Notifications</header>
      <div className="card-body set-notify">
        <p className="set-lede">
          When a run ends, a node is outbid or a run nears its budget while you are not looking,
          Tender tells you. The words name the job, the run, its status and cost — never a secret.
        </p>
        <label className="check">
          <input
            type="checkbox"
            checked={isDesktopOn}
            disabled={isBusy}
            data-testid="notify-desktop"
            onChange={(e) => void toggleDesktop(e.target.checked)}
          />
          <span>
            Notify me when a run ends
            <span className="hint block">
              {isWeb
                ? 'A browser notification while this tab is hidden or in the background.'
                : 'A desktop notification while the Tender window is not in front.'}
            </span>
          </span>
        </label>
        {isWeb && isDesktopOn && <BrowserPermission />}
        <form className="set-key-form" onSubmit={(e) => void saveUrl(e)} noValidate>
          <div className={`field grow ${error ? 'set-has-error' : ''}`}>
            <label htmlFor="notify-webhook">Webhook URL</label>
            <input
              id="notify-webhook"
              className="input mono"
              spellCheck={false}
              autoComplete="off"
              placeholder="https://hooks.slack.com/services/…"
              value={url}
              aria-invalid={error ? true : undefined}
              data-testid="notify-webhook"
              onChange={(e) => {
                setUrl(e.target.value);
                setError(null);
              }}
            />
            {error ? (
              <span className="set-field-error" role="alert" data-testid="notify-webhook-error">
                {error}
              </span>
            ) : (
              <span className="hint">
                A JSON POST (<code>{'{"text": …}'}</code>, as Slack expects) from the Tender that
                holds the ledger — this one, the app or <code>tender serve</code>. https, or http to
                localhost only. Empty: none.
              </span>
            )}
          </div>
          <button
            className="btn btn-primary"
            type="submit"
            disabled={isBusy || !isChanged}
            data-testid="notify-webhook-save"
          >
            Save
          </button>
        </form>
      </div>
    </section>
  );
}

/** The browser asks once; a person who said no must change it in the site's settings. */
function BrowserPermission(): React.JSX.Element {
  const [permission, setPermission] = useState<Permission>(permissionNow);
  return (
    <div className="row set-notify-permission" data-testid="notify-permission">
      {permission === 'granted' && (
        <span className="badge green" data-state="granted">
          allowed in this browser
        </span>
      )}
      {permission === 'default' && (
        <button
          type="button"
          className="btn btn-sm"
          data-testid="notify-permission-ask"
          onClick={() => void Notification.requestPermission().then(setPermission)}
        >
          Allow browser notifications
        </button>
      )}
      {permission === 'denied' && (
        <span className="badge amber" data-state="denied">
          blocked: allow notifications for this page in the browser’s site settings
        </span>
      )}
      {permission === 'unsupported' && (
        <span className="badge amber" data-state="unsupported">
          this browser shows no notifications
        </span>
      )}
    </div>
  );
}

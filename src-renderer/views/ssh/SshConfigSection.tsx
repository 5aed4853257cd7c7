import { useState } from 'react';
import { describeError } from '../../api/backend';
import { Spinner } from '../../shell/icons';
import { useSshInclude, useSshIncludeChange } from './ssh-include';
import './ssh.css';

/** `tender ssh-config --install|--uninstall` in the app: says exactly what it changes in
 *  the user's ~/.ssh/config, and does it through the same code as the CLI. */
export function SshConfigSection(): React.JSX.Element {
  const include = useSshInclude();
  const change = useSshIncludeChange();
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const v = include.data;
  const act = async (install: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await change(install);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card set-card" data-testid="settings-ssh-config">
      <header className="card-head">ssh config</header>
      <div className="card-body">
        {include.isPending ? (
          <Spinner />
        ) : include.isError ? (
          <div className="alert" role="alert">
            {describeError(include.error)}
          </div>
        ) : (
          <>
            <p className="hint">
              Lets your own <code>ssh</code>, <code>rsync</code>, <code>scp</code>, VS Code and
              Cursor reach every live node as <code>tender-&lt;run&gt;-&lt;node&gt;</code>, with its
              pinned host key checked. Install adds exactly one line at the top of{' '}
              <code>{v!.userConfig}</code> (created 0600 if absent; written whole and renamed, so
              nothing reads half of it); Uninstall removes that line and nothing else:
            </p>
            <pre className="set-ssh-line mono" data-testid="ssh-include-line">
              {v!.line}
            </pre>
            <div className="row">
              <span data-testid="ssh-include-state">
                {v!.installed ? 'Installed: your ssh reads Tender’s entries.' : 'Not installed.'}
              </span>
              <div className="grow" />
              {v!.installed ? (
                <button className="btn btn-sm" disabled={isBusy} onClick={() => void act(false)}>
                  Uninstall
                </button>
              ) : (
                <button
                  className="btn btn-sm btn-primary"
                  disabled={isBusy}
                  onClick={() => void act(true)}
                >
                  Install
                </button>
              )}
            </div>
            {error && (
              <div className="alert" role="alert">
                {error}
              </div>
            )}
            <p className="hint">
              Same as <code>tender ssh-config --install</code> / <code>--uninstall</code>.
            </p>
          </>
        )}
      </div>
    </section>
  );
}

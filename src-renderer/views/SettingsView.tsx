import { useState } from 'react';
import { describeError } from '../api/backend';
import { useSettings } from '../api/queries';
import { toast } from '../components/toasts';
import { Spinner } from '../shell/icons';
import { ApiKeySection } from './settings/ApiKeySection';
import { ClustersSection } from './settings/ClustersSection';
import { DefaultsSection } from './settings/DefaultsSection';
import { HostsSection } from './settings/HostsSection';
import { NotifySection } from './settings/NotifySection';
import { SshConfigSection } from './ssh/SshConfigSection';
import './settings/settings.css';

/** Provider keys, defaults for new runs, notifications, your own machines and Slurm
 *  clusters, and where Tender keeps its data. */
export function SettingsView(): React.JSX.Element {
  const settings = useSettings();
  return (
    <div className="page set-page" data-testid="settings">
      <div className="page-head">
        <div>
          <h1>Settings</h1>
          <div className="sub">
            Keys, defaults for new runs, your own machines and clusters, and where Tender keeps its
            data.
          </div>
        </div>
      </div>
      {settings.isPending ? (
        <div className="card empty row set-loading">
          <Spinner /> Reading settings…
        </div>
      ) : settings.isError ? (
        <div className="alert" role="alert">
          <strong>Could not read the settings.</strong> {describeError(settings.error)}{' '}
          <button className="btn btn-sm" onClick={() => void settings.refetch()}>
            Try again
          </button>
        </div>
      ) : (
        <div className="set-stack">
          <ApiKeySection settings={settings.data} />
          <DefaultsSection key={JSON.stringify(settings.data.defaults)} settings={settings.data} />
          <NotifySection key={settings.data.notify.webhookUrl ?? ''} settings={settings.data} />
          <HostsSection publicKey={settings.data.sshPublicKey} />
          <ClustersSection dataFolder={settings.data.dataFolder} />
          <SshConfigSection />
          <DataSection folder={settings.data.dataFolder} shell={settings.data.shell} />
        </div>
      )}
    </div>
  );
}

function DataSection({
  folder,
  shell,
}: {
  folder: string;
  shell: 'app' | 'web';
}): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <section className="card set-card" data-testid="settings-data">
      <header className="card-head">Data</header>
      <div className="card-body">
        <dl className="set-data-facts">
          <dt>Data folder</dt>
          <dd className="row">
            <code className="set-data-folder" data-testid="data-folder">
              {folder}
            </code>
            <button
              className="btn btn-sm"
              onClick={() =>
                void navigator.clipboard.writeText(folder).then(
                  () => {
                    setCopied(true);
                    setTimeout(() => setCopied(false), 1500);
                  },
                  () => toast('Could not copy: select the path and copy it by hand', 'error'),
                )
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </dd>
          <dt />
          <dd className="hint">
            The ledger (ledger.sqlite), logs, collected outputs, Tender’s SSH key, hosts.toml and
            clusters.toml. Back it up with the app closed; deleting it makes Tender forget leases
            that may still bill.
          </dd>
          <dt>Running as</dt>
          <dd>
            {shell === 'app' ? 'the desktop app' : 'web mode (tender serve), on 127.0.0.1 only'}
          </dd>
        </dl>
      </div>
    </section>
  );
}

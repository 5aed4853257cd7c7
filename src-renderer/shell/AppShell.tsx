import { ChipIcon, GearIcon, LedgerIcon, PlayIcon, PlusIcon } from './icons';
import { useEffect, useState } from 'react';
import { backend } from '../api/backend';
import { useStatus } from '../api/queries';
import { isLive } from '../lib/billing';
import { useUi, type View } from '../store/ui';
import { WsTenderApi, type ConnectionState } from '../transport/ws-client';
import { ComposerView } from '../views/ComposerView';
import { fillFromJobFile } from '../views/composer/use-job-file';
import { LedgerView } from '../views/LedgerView';
import { OffersView } from '../views/OffersView';
import { RunPage } from '../views/RunPage';
import { SettingsView } from '../views/SettingsView';
import { BurnRate } from './BurnRate';
import { TeardownAll } from './TeardownAll';
import { useBrowserNotices } from './use-browser-notices';
import { useHashRoute } from './use-hash-route';

const NAV: { view: View; label: string; icon: React.JSX.Element }[] = [
  { view: 'ledger', label: 'Ledger', icon: <LedgerIcon /> },
  { view: 'offers', label: 'Offers', icon: <ChipIcon /> },
  { view: 'composer', label: 'New run', icon: <PlusIcon /> },
  { view: 'run', label: 'Runs', icon: <PlayIcon /> },
  { view: 'settings', label: 'Settings', icon: <GearIcon /> },
];

export function AppShell(): React.JSX.Element {
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  const { data } = useStatus();
  const running =
    data?.runs.filter((r) => r.status === 'pending' || r.status === 'running').length ?? 0;
  const live = data?.leases.filter(isLive).length ?? 0;
  useBrowserNotices();
  useHashRoute();
  // The desktop app's File › Open tender.toml…: the composer fills itself from the file.
  useEffect(
    () =>
      window.tenderDesktop?.onOpenJob?.((path) => {
        setView('composer');
        void fillFromJobFile(path);
      }),
    [setView],
  );
  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <div className="brand-mark" aria-hidden="true" />
          Tender
        </div>
        <BurnRate />
        <div className="topbar-spacer" />
        <Connection />
        <TeardownAll />
      </header>
      <nav className="sidebar" aria-label="Views">
        {NAV.map((n) => (
          <button
            key={n.view}
            className="nav-item"
            aria-current={view === n.view ? 'page' : undefined}
            data-testid={`nav-${n.view}`}
            onClick={() => setView(n.view)}
          >
            <span aria-hidden="true">{n.icon}</span>
            {n.label}
            {n.view === 'ledger' && live > 0 && <span className="count">{live} live</span>}
            {n.view === 'run' && running > 0 && <span className="count">{running} running</span>}
          </button>
        ))}
        <div className="sidebar-foot">No billed machine slips out of sight.</div>
      </nav>
      <main className="main">
        {view === 'ledger' && <LedgerView />}
        {view === 'offers' && <OffersView />}
        {view === 'composer' && <ComposerView />}
        {view === 'run' && <RunPage />}
        {view === 'settings' && <SettingsView />}
      </main>
    </div>
  );
}

/** Web mode only: whether the socket to `tender serve` is up. */
function Connection(): React.JSX.Element | null {
  const [state, setState] = useState<ConnectionState>('open');
  useEffect(() => {
    const api = backend();
    return api instanceof WsTenderApi ? api.onState(setState) : undefined;
  }, []);
  if (state === 'open') return null;
  return (
    <span className="conn down" role="status">
      {state === 'connecting' ? 'Reconnecting to Tender…' : 'Disconnected from Tender'}
    </span>
  );
}

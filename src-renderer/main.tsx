import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { StatusView } from '../src-main/contract';
import { tenderApi } from './tender-api';

// A placeholder page: the ledger, offers, composer and log views arrive with the UI issue.
function App(): React.JSX.Element {
  const [status, setStatus] = useState<StatusView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const api = tenderApi();
    if (!api) return setError('No Tender backend is connected to this window.');
    void api
      .invoke('status.get', {})
      .then((r) => (r.ok ? setStatus(r.value) : setError(r.error.message)));
  }, []);
  const live =
    status?.leases.filter((l) => ['requested', 'created', 'destroying'].includes(l.state)).length ??
    0;
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 32 }}>
      <h1>Tender</h1>
      {error && <p role="alert">{error}</p>}
      {status && (
        <p data-testid="ledger">
          {status.runs.length} runs · {live} live leases · {status.orphans.length} orphans
        </p>
      )}
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setBackend } from './api/backend';
import { useLiveEvents } from './api/queries';
import { Toasts } from './components/toasts';
import { AppShell } from './shell/AppShell';
import { sessionToken, WsTenderApi } from './transport/ws-client';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 2_000 } },
});

function App(): React.JSX.Element {
  useLiveEvents();
  return (
    <>
      <AppShell />
      <Toasts />
    </>
  );
}

function NoBackend({ why }: { why: string }): React.JSX.Element {
  return (
    <div className="empty" style={{ marginTop: '20vh' }}>
      <strong>Tender is not connected</strong>
      {why}
    </div>
  );
}

const root = createRoot(document.getElementById('root')!);
// The desktop app's preload puts window.tender here; in web mode it is the WebSocket.
let why: string | null = null;
if (window.tender) {
  setBackend(window.tender);
} else {
  const token = sessionToken();
  if (token) {
    setBackend(
      new WsTenderApi(token, {
        // Events sent while the socket was down are gone: refetch everything live.
        onReconnect: () => void queryClient.invalidateQueries(),
      }),
    );
  } else {
    why = 'Open the address `tender serve` printed (it carries the session token).';
  }
}
root.render(
  <StrictMode>
    {why ? (
      <NoBackend why={why} />
    ) : (
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    )}
  </StrictMode>,
);

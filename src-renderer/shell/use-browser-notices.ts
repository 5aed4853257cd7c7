import { useEffect, useRef } from 'react';
import { subscribe } from '../api/backend';
import { useSettings, useStatus } from '../api/queries';
import { browserNotice, isUnwatched, seenOf, type SeenRun } from './browser-notices';

/** Web mode's desktop notifications: the browser's, once the person allowed them in
 *  Settings, for runs this page saw end while nobody looked at it. The app shows its own
 *  (Electron's, from the main process), so this stays silent there. */
export function useBrowserNotices(): void {
  const settings = useSettings().data;
  const runs = useStatus().data?.runs;
  const seen = useRef(new Map<string, SeenRun>());
  const isOn =
    settings?.shell === 'web' && settings.notify.notifyDesktop && 'Notification' in window;

  // What the page knows at load is the baseline: only later changes are told.
  useEffect(() => {
    for (const r of runs ?? []) if (!seen.current.has(r.id)) seen.current.set(r.id, seenOf(r));
  }, [runs]);

  useEffect(
    () =>
      subscribe('run.changed', (run) => {
        const notice = browserNotice(seen.current.get(run.id), run);
        seen.current.set(run.id, seenOf(run));
        if (!notice || !isOn || Notification.permission !== 'granted') return;
        if (!isUnwatched(document)) return;
        const n = new Notification(notice.title, { body: notice.body, tag: notice.key });
        n.onclick = () => window.focus();
      }),
    [isOn],
  );
}

// A daemon whose node folder was removed (a destroy that raced its start, an `rm -rf` of the
// run) has nothing left to serve: it stops its job and ends rather than run on unseen.
import { existsSync } from 'node:fs';

const CHECK_MS = 2_000;

export function watchNodeFolder(dir: string, onGone: () => void): () => void {
  const timer = setInterval(() => {
    if (existsSync(dir)) return;
    clearInterval(timer);
    onGone();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

import { Ledger } from '../ledger/ledger';

/** What a command that writes calls first: nothing in the writer; in a read-only process,
 *  re-acquiring the ledger's lock throws the standard "already running" error naming who
 *  holds it. */
export function writerGuard(home: string, isWriter: boolean): () => void {
  return () => {
    if (!isWriter) Ledger.openWriter(home).close();
  };
}

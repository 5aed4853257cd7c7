import { useQuery } from '@tanstack/react-query';
import { ApiError, call, describeError } from '../../api/backend';
import { toast } from '../../components/toasts';
import { useUi } from '../../store/ui';
import { loadedToDraft } from './job-to-draft';
import { useDebounced } from './use-debounced';

export type JobFileProbe =
  | { kind: 'none' }
  | { kind: 'found'; file: string; jobName: string }
  | { kind: 'broken'; message: string };

/** Whether the workspace folder holds a tender.toml, and what it says (or what is wrong). */
export function useJobFileProbe(workdir: string): JobFileProbe {
  const dir = useDebounced(workdir.trim(), 400);
  const { data } = useQuery({
    queryKey: ['job.load', dir],
    enabled: dir.length > 0,
    staleTime: 5_000,
    retry: false,
    queryFn: async (): Promise<JobFileProbe> => {
      try {
        const loaded = await call('job.load', { path: dir });
        return { kind: 'found', file: loaded.file, jobName: loaded.job.name };
      } catch (err) {
        if (err instanceof ApiError && err.code === 'not_found') return { kind: 'none' };
        if (err instanceof ApiError && err.code === 'bad_input' && !/absolute/.test(err.message))
          return { kind: 'broken', message: describeError(err) };
        return { kind: 'none' };
      }
    },
  });
  return dir ? (data ?? { kind: 'none' }) : { kind: 'none' };
}

/** Reads a tender.toml (or a folder's) into the composer; says what it could not carry. */
export async function fillFromJobFile(path: string): Promise<boolean> {
  try {
    const loaded = await call('job.load', { path });
    const { draft, notes } = loadedToDraft(loaded);
    // Offers picked by hand stay when the file rents from their marketplace.
    const picked = useUi.getState().draft.offers;
    if (picked[0] && draft.provider === picked[0].provider && draft.offers.length === 0)
      draft.offers = picked;
    useUi.getState().patchDraft(draft); // the page head names the file it came from
    for (const n of notes) toast(`Note: ${n}`);
    return true;
  } catch (err) {
    toast(describeError(err), 'error');
    return false;
  }
}

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ErrorData, RunPlan } from '../../../src-main/contract';
import { call, errorData } from '../../api/backend';
import { keys } from '../../api/queries';
import type { ComposerDraft } from '../../store/ui';
import { draftProblems, draftToPlanInput } from './draft-to-run';
import { useDebounced } from './use-debounced';

export type PlanState =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; error: ErrorData }
  | { state: 'ready'; plan: RunPlan; isStale: boolean };

/** A warm node's idle deadline moves on and other runs take or leave warm nodes; events
 *  ask again sooner (api/queries.ts), this catches the rest. */
const PLAN_REFRESH_MS = 15_000;

/** What `run.plan` says the draft would do (warm nodes or new leases), asked once the draft
 *  converts and has stayed the same for a moment. */
export function useRunPlan(draft: ComposerDraft): PlanState {
  const isValid = Object.keys(draftProblems(draft)).length === 0;
  const input = isValid ? JSON.stringify(draftToPlanInput(draft)) : null;
  const key = useDebounced(input, 400);
  const q = useQuery({
    queryKey: keys.plan(key ?? ''),
    enabled: key !== null,
    retry: false,
    refetchInterval: PLAN_REFRESH_MS,
    placeholderData: keepPreviousData,
    queryFn: () => call('run.plan', JSON.parse(key!) as ReturnType<typeof draftToPlanInput>),
  });
  if (input === null) return { state: 'idle' };
  if (q.error && !q.isPlaceholderData) return { state: 'error', error: errorData(q.error) };
  if (!q.data) return { state: 'loading' };
  return { state: 'ready', plan: q.data, isStale: q.isPlaceholderData || key !== input };
}

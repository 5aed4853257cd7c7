import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { APP_ORIGIN, type ErrorData, type RunView } from '../../../src-main/contract';
import { call, errorData } from '../../api/backend';
import { keys } from '../../api/queries';
import { toast } from '../../components/toasts';
import { useUi } from '../../store/ui';
import { missingSecret } from './rerun';

export interface Rerun {
  start(): void;
  isPending: boolean;
  error: ErrorData | null;
  /** Gives a secret the rerun asked for and tries again. */
  giveSecret(name: string, value: string): void;
  dismiss(): void;
}

/** `run.rerun` of a run: opens the new run as the composer's Run does; an error stays in
 *  the header (with a field for a secret the run needs again). `failed`: a sweep's failed
 *  and cancelled cells only. */
export function useRerun(run: RunView, opts: { failed?: boolean } = {}): Rerun {
  const failed = opts.failed === true;
  const qc = useQueryClient();
  const openRun = useUi((s) => s.openRun);
  const [error, setError] = useState<ErrorData | null>(null);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const m = useMutation({
    mutationFn: (given: Record<string, string>) =>
      call('run.rerun', {
        runId: run.id,
        secrets: given,
        origin: APP_ORIGIN,
        ...(failed ? { failed } : {}),
      }),
    onSuccess: (next) => {
      setError(null);
      setSecrets({});
      qc.setQueryData(keys.run(next.id), next);
      void qc.invalidateQueries({ queryKey: keys.status });
      toast(
        failed
          ? `Started the failed cells of ${next.jobName} again (${next.id})`
          : `Started ${next.jobName} again (${next.id})`,
      );
      openRun(next.id);
    },
    onError: (err) => setError(errorData(err)),
  });
  return {
    start: () => {
      setError(null);
      m.mutate(secrets);
    },
    isPending: m.isPending,
    error,
    giveSecret: (name, value) => {
      const given = { ...secrets, [name]: value };
      setSecrets(given);
      setError(null);
      m.mutate(given);
    },
    dismiss: () => setError(null),
  };
}

/** Why a rerun did not start: the message and its hint; a secret it needs, asked for. */
export function RerunError({ rerun }: { rerun: Rerun }): React.JSX.Element | null {
  const [value, setValue] = useState('');
  const { error } = rerun;
  if (!error) return null;
  const secret = missingSecret(error);
  return (
    <div className="alert run-rerun-error" role="alert" data-testid="rerun-error">
      <div className="row">
        <span className="grow">
          <strong>Not rerun: </strong>
          {error.message}
        </span>
        <button className="btn btn-sm btn-ghost" onClick={rerun.dismiss}>
          Dismiss
        </button>
      </div>
      {error.hint && <div className="run-rerun-hint">{error.hint}</div>}
      {secret && (
        <form
          className="run-rerun-secret"
          onSubmit={(e) => {
            e.preventDefault();
            if (value) rerun.giveSecret(secret, value);
            setValue('');
          }}
        >
          <label htmlFor="rerun-secret">
            Give <span className="mono">{secret}</span> for this run (it is not kept):
          </label>
          <input
            id="rerun-secret"
            className="input"
            type="password"
            autoComplete="off"
            data-testid="rerun-secret"
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
          <button className="btn btn-sm" type="submit" disabled={!value || rerun.isPending}>
            Rerun with it
          </button>
        </form>
      )}
    </div>
  );
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ForwardView, RunView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys, useForwards, useSettings } from '../../api/queries';
import { toast } from '../../components/toasts';
import { logicalOf } from '../../lib/format';
import { openExternal } from '../../lib/open-external';
import { copyText } from './clipboard';
import { forwardHref, forwardKey, forwardText, shortToken, sortForwards } from './forward-text';
import { CloseIcon, CopyIcon, PlusIcon } from './icons';
import { OpenForwardForm } from './OpenForwardForm';
import { nodeName } from './ranks';
import { isActive } from './RunHeader';

/** A run's port forwards (docs/forwards.md): each local one a link to where it listens
 *  here (with the job's Jupyter token), each reverse one what the node reaches; "Open a
 *  port…" and a close for each. Live by `forward.changed`. Shown while the run goes on, or
 *  while a forward of it is open. */
export function ForwardsCard(props: {
  run: RunView;
  isDistributed: boolean;
}): React.JSX.Element | null {
  const { run, isDistributed } = props;
  const qc = useQueryClient();
  const { data, error } = useForwards(run.id);
  const { data: settings } = useSettings();
  const [isOpening, setIsOpening] = useState(false);
  const close = useMutation({
    mutationFn: (f: ForwardView) =>
      call('forward.close', {
        runId: run.id,
        nodeName: logicalOf(f.nodeId),
        remotePort: f.remotePort,
        direction: f.direction,
      }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.forwards(run.id) }),
    onError: (err) => toast(describeError(err), 'error'),
  });
  const forwards = sortForwards(data ?? []);
  const active = isActive(run);
  if (!active && forwards.length === 0) return null;
  const closing = close.isPending && close.variables ? forwardKey(close.variables) : null;
  const showNode = run.nodes.length > 1;
  const byId = new Map(run.nodes.map((n) => [n.id, n]));
  const whose = (f: ForwardView) => {
    const n = byId.get(f.nodeId);
    return n ? nodeName(n, isDistributed) : logicalOf(f.nodeId);
  };

  return (
    <section className="card forwards" data-testid="forwards">
      <div className="card-head">
        Forwards
        {forwards.length > 0 && <span className="faint tabular">{forwards.length}</span>}
        <div className="grow" />
        {active && !isOpening && (
          <button
            className="btn btn-sm"
            data-testid="forward-add"
            title="Reach a port on a node from here, over its SSH connection"
            onClick={() => setIsOpening(true)}
          >
            <PlusIcon /> Open a port…
          </button>
        )}
      </div>
      {settings?.shell === 'web' && (
        <div className="forwards-where hint" data-testid="forwards-where">
          Forwards listen on the machine serving Tender ({window.location.host}), on 127.0.0.1 only.
        </div>
      )}
      {error ? (
        <div className="card-body red">{describeError(error)}</div>
      ) : forwards.length === 0 ? (
        <div className="card-body dim" data-testid="forwards-empty">
          No forwards open. A job&apos;s ports open when its run starts; open another here.
        </div>
      ) : (
        <ul className="forward-list">
          {forwards.map((f) => {
            const key = forwardKey(f);
            const text = forwardText(f);
            const href = forwardHref(f);
            return (
              <li
                key={key}
                className="forward"
                data-testid="forward"
                data-direction={f.direction}
                data-remote-port={f.remotePort}
              >
                {showNode && <span className="forward-node mono">{whose(f)}</span>}
                {href ? (
                  <a
                    className="forward-link"
                    data-testid="forward-link"
                    href={href}
                    target="_blank"
                    rel="noreferrer"
                    title={`Opens ${href}`}
                  >
                    {text}
                  </a>
                ) : (
                  <span
                    className="forward-reverse mono"
                    data-testid="forward-reverse"
                    title="The node's 127.0.0.1 port reaches this address from here"
                  >
                    {text}
                  </span>
                )}
                {f.token && <TokenTag token={f.token} />}
                {f.token && href && (
                  <button
                    className="btn btn-sm btn-primary"
                    data-testid="forward-open-notebook"
                    title={`Opens ${href} in your browser: the notebook, logged in with its token`}
                    onClick={() => openExternal(href)}
                  >
                    Open notebook
                  </button>
                )}
                <div className="grow" />
                <button
                  className="icon-btn"
                  data-testid="forward-close"
                  aria-label={`Close ${text}`}
                  title="Close this forward"
                  disabled={closing === key}
                  onClick={() => close.mutate(f)}
                >
                  <CloseIcon />
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {active && isOpening && (
        <OpenForwardForm
          run={run}
          isDistributed={isDistributed}
          onClose={() => setIsOpening(false)}
        />
      )}
    </section>
  );
}

/** The token the job printed (Jupyter's): its start, and a copy of all of it. */
function TokenTag({ token }: { token: string }): React.JSX.Element {
  return (
    <span className="forward-token" data-testid="forward-token">
      token{' '}
      <span className="mono" title={token}>
        {shortToken(token)}
      </span>
      <button
        className="btn btn-sm"
        title="Copy the token"
        onClick={() =>
          void copyText(token).then((ok) =>
            toast(
              ok ? 'Copied the token' : 'The clipboard refused the copy',
              ok ? 'info' : 'error',
            ),
          )
        }
      >
        <CopyIcon /> Copy
      </button>
    </span>
  );
}

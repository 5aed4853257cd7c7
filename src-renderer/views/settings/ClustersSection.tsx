import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { ClusterView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys, useClusters, useStatus } from '../../api/queries';
import { Dialog } from '../../components/Dialog';
import { money } from '../../lib/format';
import { toast } from '../../components/toasts';
import { Spinner } from '../../shell/icons';
import {
  EMPTY_CLUSTER_FORM,
  clusterErrorByField,
  clusterFormToInput,
  clusterInUse,
  loginText,
  slurmDefaults,
  type ClusterField,
} from './cluster-form';
import type { FieldErrors } from './field-errors';

/** Slurm clusters (clusters.toml, docs/slurm.md): a run with provider `slurm` submits one
 *  allocation per node to the login node over SSH. Mirrors the machines section. */
export function ClustersSection({ dataFolder }: { dataFolder: string }): React.JSX.Element {
  const clusters = useClusters();
  const status = useStatus();
  const [removing, setRemoving] = useState<ClusterView | null>(null);
  const [isAdding, setAdding] = useState(false);
  /** The cluster just added, for the key hint (until dismissed, another is added, or it is
   *  removed). */
  const [added, setAdded] = useState<ClusterView | null>(null);
  const list = clusters.data ?? [];
  const leases = status.data?.leases ?? [];
  return (
    <section className="card set-card" data-testid="settings-clusters">
      <header className="card-head">
        Slurm clusters (slurm provider)
        <span className="grow" />
        {!isAdding && (
          <button
            className="btn btn-sm"
            onClick={() => setAdding(true)}
            data-testid="cluster-add-open"
          >
            Add a cluster
          </button>
        )}
      </header>
      <div className="card-body">
        <p className="set-lede">
          A lab’s Slurm cluster, reached over SSH at its login node. A run with provider{' '}
          <code>slurm</code> submits one allocation per node there (sbatch) and reaches it through{' '}
          <code>srun --overlap</code>; nothing bills, unless you give a notional $/GPU-hour for the
          cost report. The login node’s host key is pinned on first contact.
        </p>
      </div>
      {added && <KeyHint cluster={added} dataFolder={dataFolder} onClose={() => setAdded(null)} />}
      {isAdding && (
        <AddClusterForm
          onCancel={() => setAdding(false)}
          onAdded={(c) => {
            setAdding(false);
            setAdded(c);
          }}
        />
      )}
      {clusters.isPending ? (
        <div className="empty row set-hosts-loading">
          <Spinner /> Reading clusters.toml…
        </div>
      ) : clusters.isError ? (
        <div className="alert set-alert">{describeError(clusters.error)}</div>
      ) : list.length === 0 ? (
        !isAdding && (
          <div className="empty set-hosts-empty" data-testid="clusters-none">
            <strong>No clusters yet</strong>
            Add one with its login node and your user there, and the partition, account and QOS its
            jobs go to when a run does not say.
          </div>
        )
      ) : (
        <table className="table set-hosts-table set-clusters-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Login node</th>
              <th>Submitted with</th>
              <th>Key file</th>
              <th>Host key</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((c) => {
              const inUse = clusterInUse(c.name, leases);
              return (
                <tr key={c.name} data-testid="cluster-row" data-cluster={c.name}>
                  <td className="set-host-name">{c.name}</td>
                  <td className="mono" data-testid="cluster-row-login">
                    {loginText(c)}
                  </td>
                  <td data-testid="cluster-row-defaults">
                    <div className="set-cluster-defaults">
                      {slurmDefaults(c).map((d) => (
                        <span key={d.label}>
                          <span className="faint">{d.label}</span>{' '}
                          <span className={d.isDefault ? 'faint' : 'mono'}>{d.value}</span>
                        </span>
                      ))}
                      {c.gpuHourUsd !== null && (
                        <span>
                          <span className="faint">notional</span>{' '}
                          <span className="tabular">{money(c.gpuHourUsd)}/GPU-h</span>
                        </span>
                      )}
                    </div>
                  </td>
                  <td className="mono dim set-nowrap" data-testid="cluster-row-key">
                    {c.identityFile ?? <span className="faint">Tender’s key</span>}
                  </td>
                  <td className="set-nowrap" data-testid="cluster-row-host-key">
                    {c.hostKey ? (
                      <span className="mono set-fingerprint" title={c.hostKey}>
                        {c.hostKey}
                      </span>
                    ) : (
                      <span className="faint">not contacted yet</span>
                    )}
                  </td>
                  <td className="set-host-actions">
                    <button
                      className="btn btn-sm btn-danger"
                      onClick={() => setRemoving(c)}
                      disabled={inUse.length > 0}
                      title={
                        inUse.length > 0
                          ? `In use by ${inUse.join(', ')}: tear that run down first`
                          : undefined
                      }
                      data-testid="cluster-remove"
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {removing && (
        <RemoveConfirm
          cluster={removing}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            if (added?.name === removing.name) setAdded(null);
          }}
        />
      )}
    </section>
  );
}

/** After adding: how to run on it, and, without a key file, which key its login node must
 *  authorize (as `tender clusters add` says). */
function KeyHint(props: {
  cluster: ClusterView;
  dataFolder: string;
  onClose: () => void;
}): React.JSX.Element {
  const { cluster: c } = props;
  return (
    <div className="set-cluster-hint" role="status" data-testid="cluster-added-hint">
      <div className="grow">
        <strong>Added {c.name}.</strong>{' '}
        {c.identityFile ? (
          <>
            Its login node is reached with <span className="mono">{c.identityFile}</span>.
          </>
        ) : (
          <>
            Its login node is reached with Tender’s key unless a key file is given: add{' '}
            <span className="mono" data-testid="cluster-key-path">
              {props.dataFolder}/keys/id_ed25519.pub
            </span>{' '}
            to <span className="mono">~/.ssh/authorized_keys</span> there (the key is shown under
            “Your machines”).
          </>
        )}{' '}
        In New run, pick <em>Slurm cluster</em> and {c.name}.
      </div>
      <button className="btn btn-sm btn-ghost" onClick={props.onClose}>
        Dismiss
      </button>
    </div>
  );
}

function AddClusterForm(props: {
  onCancel: () => void;
  onAdded: (c: ClusterView) => void;
}): React.JSX.Element {
  const qc = useQueryClient();
  const [form, setForm] = useState(EMPTY_CLUSTER_FORM);
  const [errors, setErrors] = useState<FieldErrors<ClusterField>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const r = clusterFormToInput(form);
    if (!r.ok) {
      setErrors(r.fields);
      setGeneral(r.general);
      return;
    }
    setBusy(true);
    setGeneral(null);
    try {
      const added = await call('clusters.add', r.input);
      await qc.invalidateQueries({ queryKey: keys.clusters });
      toast(`Added ${added.name}; its login node’s host key is pinned on first contact`);
      props.onAdded(added);
    } catch (err) {
      const byField = clusterErrorByField(err);
      setErrors(byField.fields);
      setGeneral(byField.general);
    } finally {
      setBusy(false);
    }
  };

  const input = (
    field: ClusterField,
    label: string,
    extra: React.InputHTMLAttributes<HTMLInputElement>,
    hint?: string,
  ) => (
    <div className={`field ${errors[field] ? 'set-has-error' : ''}`}>
      <label htmlFor={`cluster-${field}`}>{label}</label>
      <input
        id={`cluster-${field}`}
        className="input"
        value={form[field]}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={errors[field] ? true : undefined}
        data-testid={`cluster-${field}`}
        onChange={(e) => {
          setForm({ ...form, [field]: e.target.value });
          setErrors({ ...errors, [field]: undefined });
        }}
        {...extra}
      />
      {errors[field] ? (
        <span className="set-field-error" role="alert" data-testid={`cluster-error-${field}`}>
          {errors[field]}
        </span>
      ) : (
        hint && <span className="hint">{hint}</span>
      )}
    </div>
  );

  return (
    <form
      className="set-add-host"
      onSubmit={(e) => void submit(e)}
      noValidate
      data-testid="cluster-add-form"
    >
      <div className="set-add-cluster-grid">
        {input('name', 'Name', { placeholder: 'lab', autoFocus: true }, 'Letters, digits, . _ -')}
        {input(
          'login',
          'Login node',
          { placeholder: 'ada@login.lab.edu' },
          'user@login-host, or user@login-host:port',
        )}
        {input(
          'identityFile',
          'Identity file',
          { placeholder: '~/.ssh/id_ed25519' },
          'Optional; else Tender’s key',
        )}
        {input('partition', 'Partition', { placeholder: 'gpu' }, 'Optional; else the default')}
        {input('account', 'Account', { placeholder: 'ml-lab' }, 'Optional')}
        {input('qos', 'QOS', { placeholder: 'normal' }, 'Optional')}
        {input(
          'gpuHourUsd',
          'Notional $/GPU-hour',
          { placeholder: 'none', inputMode: 'decimal' },
          'Optional; for the cost report only',
        )}
      </div>
      {general && (
        <div className="alert set-alert" role="alert" data-testid="cluster-add-error">
          {general}
        </div>
      )}
      <div className="set-actions">
        <span className="grow" />
        <button type="button" className="btn btn-ghost" onClick={props.onCancel} disabled={isBusy}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={isBusy}
          data-testid="cluster-add-save"
        >
          {isBusy ? 'Adding…' : 'Add cluster'}
        </button>
      </div>
    </form>
  );
}

function RemoveConfirm(props: {
  cluster: ClusterView;
  onClose: () => void;
  onRemoved: () => void;
}): React.JSX.Element {
  const qc = useQueryClient();
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { cluster: c } = props;
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await call('clusters.remove', { name: c.name });
      toast(r.removed ? `Removed ${c.name} from clusters.toml` : `${c.name} was already gone`);
      await qc.invalidateQueries({ queryKey: keys.clusters });
      props.onRemoved();
      props.onClose();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };
  return (
    <Dialog
      title={`Remove ${c.name}?`}
      onClose={props.onClose}
      busy={isBusy}
      actions={
        <>
          <button className="btn" onClick={props.onClose} disabled={isBusy}>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            onClick={() => void run()}
            disabled={isBusy}
            data-testid="cluster-confirm"
          >
            Remove
          </button>
        </>
      }
    >
      <p>
        Runs can no longer submit to <strong>{c.name}</strong> ({loginText(c)}). Nothing on the
        cluster is touched, and you can add it again later.
      </p>
      {error && (
        <div className="alert" role="alert">
          {error}
        </div>
      )}
    </Dialog>
  );
}

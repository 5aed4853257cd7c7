import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { HostInput, type HostView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys, useHosts } from '../../api/queries';
import { Dialog } from '../../components/Dialog';
import { toast } from '../../components/toasts';
import { Spinner } from '../../shell/icons';
import { errorByField, issuesByField, type FieldErrors } from './field-errors';

type Field = 'name' | 'host' | 'port' | 'user' | 'identityFile';
const FIELDS: readonly Field[] = ['name', 'host', 'port', 'user', 'identityFile'];
const EMPTY: Record<Field, string> = { name: '', host: '', port: '22', user: '', identityFile: '' };

type Pending = { kind: 'remove' | 'forget'; host: HostView } | null;

/** Machines of your own, reached over SSH (hosts.toml): nothing bills on them. */
export function HostsSection({ publicKey }: { publicKey: string }): React.JSX.Element {
  const hosts = useHosts();
  const [pending, setPending] = useState<Pending>(null);
  const [isAdding, setAdding] = useState(false);
  const list = hosts.data ?? [];
  return (
    <section className="card set-card" data-testid="settings-hosts">
      <header className="card-head">
        Your machines (ssh provider)
        <span className="grow" />
        {!isAdding && (
          <button
            className="btn btn-sm"
            onClick={() => setAdding(true)}
            data-testid="host-add-open"
          >
            Add a machine
          </button>
        )}
      </header>
      <div className="card-body">
        <p className="set-lede">
          Workstations and lab servers you can SSH into. A run with provider <code>ssh</code> claims
          one per node; nothing bills. Each must authorize Tender’s public key (or use the identity
          file you give):
        </p>
        <PublicKey value={publicKey} />
      </div>
      {isAdding && <AddHostForm onDone={() => setAdding(false)} />}
      {hosts.isPending ? (
        <div className="empty row set-hosts-loading">
          <Spinner /> Reading hosts.toml…
        </div>
      ) : hosts.isError ? (
        <div className="alert set-alert">{describeError(hosts.error)}</div>
      ) : list.length === 0 ? (
        !isAdding && (
          <div className="empty set-hosts-empty" data-testid="hosts-empty">
            <strong>No machines yet</strong>
            Add one with its address and SSH user; Tender checks and pins its host key on first
            contact.
          </div>
        )
      ) : (
        <table className="table set-hosts-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Address</th>
              <th>Identity file</th>
              <th>In use by</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((h) => (
              <tr key={h.name} data-testid="host-row" data-host={h.name}>
                <td className="set-host-name">{h.name}</td>
                <td className="mono">
                  {h.user}@{h.host}
                  {h.port !== 22 && <span className="faint">:{h.port}</span>}
                </td>
                <td className="mono dim">
                  {h.identityFile ?? <span className="faint">Tender’s own key</span>}
                </td>
                <td>
                  {h.claimedBy ? (
                    <span className="badge blue plain mono">{h.claimedBy}</span>
                  ) : (
                    <span className="faint">free</span>
                  )}
                </td>
                <td className="set-host-actions">
                  <button
                    className="btn btn-sm btn-ghost"
                    onClick={() => setPending({ kind: 'forget', host: h })}
                    title="After the machine was reinstalled: forget the host key Tender pinned"
                    data-testid="host-forget-key"
                  >
                    Forget host key
                  </button>
                  <button
                    className="btn btn-sm btn-danger"
                    onClick={() => setPending({ kind: 'remove', host: h })}
                    disabled={h.claimedBy !== null}
                    title={
                      h.claimedBy ? `In use by ${h.claimedBy}: tear that run down first` : undefined
                    }
                    data-testid="host-remove"
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pending && <HostConfirm pending={pending} onClose={() => setPending(null)} />}
    </section>
  );
}

function PublicKey({ value }: { value: string }): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <div className="set-pubkey">
      <code className="set-pubkey-text" data-testid="ssh-public-key">
        {value}
      </code>
      <button
        className="btn btn-sm"
        onClick={() =>
          void navigator.clipboard.writeText(value).then(
            () => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            },
            () => toast('Could not copy: select the key and copy it by hand', 'error'),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

function AddHostForm({ onDone }: { onDone: () => void }): React.JSX.Element {
  const qc = useQueryClient();
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<FieldErrors<Field>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const port = Number(form.port);
    const input = {
      name: form.name.trim(),
      host: form.host.trim(),
      port: form.port.trim() === '' ? 22 : port,
      user: form.user.trim(),
      ...(form.identityFile.trim() ? { identityFile: form.identityFile.trim() } : {}),
    };
    const parsed = HostInput.safeParse(input);
    if (!parsed.success) {
      const r = issuesByField(parsed.error.issues, FIELDS);
      setErrors(r.fields);
      setGeneral(r.general);
      return;
    }
    setBusy(true);
    try {
      const added = await call('hosts.add', input);
      await qc.invalidateQueries({ queryKey: keys.hosts });
      toast(`Added ${added.name}; its host key is pinned on first contact`);
      onDone();
    } catch (err) {
      const r = errorByField(err, FIELDS, 'name');
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };

  const input = (
    field: Field,
    label: string,
    extra: React.InputHTMLAttributes<HTMLInputElement>,
    hint?: string,
  ) => (
    <div className={`field ${errors[field] ? 'set-has-error' : ''}`}>
      <label htmlFor={`host-${field}`}>{label}</label>
      <input
        id={`host-${field}`}
        className="input"
        value={form[field]}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={errors[field] ? true : undefined}
        data-testid={`host-${field}`}
        onChange={(e) => {
          setForm({ ...form, [field]: e.target.value });
          setErrors({ ...errors, [field]: undefined });
        }}
        {...extra}
      />
      {errors[field] ? (
        <span className="set-field-error" role="alert" data-testid={`host-error-${field}`}>
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
      data-testid="host-add-form"
    >
      <div className="set-add-host-grid">
        {input(
          'name',
          'Name',
          { placeholder: 'lab-a100', autoFocus: true },
          'Letters, digits, . _ -',
        )}
        {input('host', 'Host', { placeholder: '10.0.0.12 or gpu.lab.example' })}
        {input('port', 'Port', { inputMode: 'numeric' })}
        {input('user', 'User', { placeholder: 'ubuntu' })}
        {input(
          'identityFile',
          'Identity file',
          { placeholder: '~/.ssh/id_ed25519' },
          'Optional; else Tender’s own key',
        )}
      </div>
      {general && (
        <div className="alert set-alert" role="alert">
          {general}
        </div>
      )}
      <div className="set-actions">
        <span className="grow" />
        <button type="button" className="btn btn-ghost" onClick={onDone} disabled={isBusy}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={isBusy}
          data-testid="host-add-save"
        >
          {isBusy ? 'Adding…' : 'Add machine'}
        </button>
      </div>
    </form>
  );
}

function HostConfirm({ pending, onClose }: { pending: NonNullable<Pending>; onClose: () => void }) {
  const qc = useQueryClient();
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { kind, host } = pending;
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      if (kind === 'remove') {
        await call('hosts.remove', { name: host.name });
        toast(`Removed ${host.name} from hosts.toml`);
      } else {
        const r = await call('hosts.forgetKey', { name: host.name });
        toast(
          r.forgotten
            ? `Forgot the host key of ${host.name}; the next connection pins the new one`
            : `${host.name} had no pinned key yet`,
        );
      }
      await qc.invalidateQueries({ queryKey: keys.hosts });
      onClose();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };
  return (
    <Dialog
      title={kind === 'remove' ? `Remove ${host.name}?` : `Forget the host key of ${host.name}?`}
      onClose={onClose}
      busy={isBusy}
      actions={
        <>
          <button className="btn" onClick={onClose} disabled={isBusy}>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            onClick={() => void run()}
            disabled={isBusy}
            data-testid="host-confirm"
          >
            {kind === 'remove' ? 'Remove' : 'Forget host key'}
          </button>
        </>
      }
    >
      {kind === 'remove' ? (
        <p>
          Runs can no longer use <strong>{host.name}</strong> ({host.user}@{host.host}). Nothing on
          the machine is touched, and you can add it again later.
        </p>
      ) : (
        <p>
          Do this only if <strong>{host.name}</strong> was reinstalled or its SSH host key changed
          on purpose. The next connection trusts whatever key the machine presents and pins it.
        </p>
      )}
      {error && (
        <div className="alert" role="alert">
          {error}
        </div>
      )}
    </Dialog>
  );
}

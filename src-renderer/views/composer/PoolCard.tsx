import { useClusters, useHosts, useSettings } from '../../api/queries';
import { describeError } from '../../api/backend';
import { configuredMarkets, isMarketplace } from '../../lib/marketplaces';
import { useUi, type ComposerDraft } from '../../store/ui';
import { CountField } from './CountField';
import { DistributedField } from './DistributedField';
import { isMarketPool } from './market-pool';
import { MarketPool } from './MarketPool';
import {
  effectiveSlurm,
  MAX_SLURM_GPUS,
  OVERRIDE_LABEL,
  overrideProblem,
  SLURM_OVERRIDES,
} from './slurm-pool';
import type { CheapestMatch } from './use-cheapest-match';

const PROVIDERS: { id: ComposerDraft['provider']; label: string; sub: string }[] = [
  { id: 'local', label: 'This machine', sub: 'free, for trying' },
  { id: 'ssh', label: 'Your hosts', sub: 'over SSH' },
  { id: 'vastai', label: 'Vast.ai', sub: 'rented GPUs' },
  { id: 'runpod', label: 'RunPod', sub: 'rented GPUs' },
  { id: 'lambda', label: 'Lambda Cloud', sub: 'rented GPUs' },
  { id: 'slurm', label: 'Slurm cluster', sub: 'allocations' },
  { id: 'chain', label: 'In order', sub: 'several marketplaces' },
  { id: 'cheapest', label: 'Cheapest', sub: 'across marketplaces' },
];

/** Where the job runs: the provider, how many nodes, which machines or what shape, and
 *  whether the nodes are one distributed gang. */
export function PoolCard(props: { problem?: string; cheapest: CheapestMatch }): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const patch = useUi((s) => s.patchDraft);
  const configured = configuredMarkets(useSettings().data);
  return (
    <section className="card composer-card">
      <div className="card-head">Where it runs</div>
      <div className="card-body stack">
        <div className="segmented" role="radiogroup" aria-label="Provider">
          {PROVIDERS.map((p) => (
            <button
              key={p.id}
              role="radio"
              aria-checked={draft.provider === p.id}
              data-testid={`provider-${p.id}`}
              onClick={() => patch({ provider: p.id })}
            >
              <span>{p.label}</span>
              <span className="seg-sub">
                {isMarketplace(p.id) && !configured.includes(p.id) ? 'no API key yet' : p.sub}
              </span>
            </button>
          ))}
        </div>
        {draft.provider === 'local' && <LocalPool />}
        {draft.provider === 'ssh' && <SshPool />}
        {isMarketPool(draft.provider) && <MarketPool cheapest={props.cheapest} />}
        {draft.provider === 'slurm' && <SlurmPool />}
        {props.problem && <div className="field-error">{props.problem}</div>}
        <DistributedField />
        <details className="advanced">
          <summary>Checks and constraints</summary>
          <div className="field">
            <textarea
              className="textarea"
              rows={2}
              aria-label="Commands run on each node before the job, one per line"
              placeholder={
                'nvidia-smi\npython3 -c "import torch; assert torch.cuda.is_available()"'
              }
              value={draft.verify.join('\n')}
              onChange={(e) => patch({ verify: e.target.value.split('\n') })}
            />
            <span className="hint">One command per line; a node where one fails is replaced.</span>
          </div>
          <div className="field">
            <textarea
              className="textarea mono"
              rows={2}
              data-testid="constraints"
              aria-label="Capability constraints, one per line"
              placeholder={'gpu.vram >= 24GB\ncuda >= 12.1'}
              value={draft.constraints}
              onChange={(e) => patch({ constraints: e.target.value })}
            />
            <span className="hint">
              Constraints, one per line (key op value): offers that cannot meet them are not rented,
              and a node whose probe fails one is replaced.
            </span>
          </div>
        </details>
      </div>
    </section>
  );
}

function LocalPool(): React.JSX.Element {
  return (
    <CountField hint="Each node is a folder on the machine running Tender: nothing is rented." />
  );
}

function SshPool(): React.JSX.Element {
  const { data: hosts, error } = useHosts();
  const picked = useUi((s) => s.draft.hosts);
  const patch = useUi((s) => s.patchDraft);
  const setView = useUi((s) => s.setView);
  if (error) return <div className="red">{describeError(error)}</div>;
  if (!hosts) return <div className="faint">Loading hosts…</div>;
  if (hosts.length === 0)
    return (
      <div className="inline-empty">
        No hosts yet. Add your machines (name, address, user) in Settings.
        <button className="btn btn-sm" onClick={() => setView('settings')}>
          Open Settings
        </button>
      </div>
    );
  const toggle = (name: string, on: boolean) =>
    patch({ hosts: on ? [...picked, name] : picked.filter((h) => h !== name) });
  return (
    <div className="field">
      <div className="label">Hosts: one node each</div>
      <div className="host-list">
        {hosts.map((h) => (
          <label className="check host" key={h.name}>
            <input
              type="checkbox"
              checked={picked.includes(h.name)}
              onChange={(e) => toggle(h.name, e.target.checked)}
            />
            <span className="grow">
              <strong>{h.name}</strong>{' '}
              <span className="mono faint">
                {h.user}@{h.host}:{h.port}
              </span>
            </span>
            {h.claimedBy && <span className="badge amber">in use by {h.claimedBy}</span>}
          </label>
        ))}
      </div>
    </div>
  );
}

/** A Slurm pool: a cluster from clusters.toml, what its allocations are submitted with over
 *  the cluster's defaults, GPUs per node and how many nodes (one allocation each). */
const SUMMARY_LABEL = { partition: 'partition', account: 'account', qos: 'QOS' } as const;

function SlurmPool(): React.JSX.Element {
  const { data: clusters, error } = useClusters();
  const slurm = useUi((s) => s.draft.slurm);
  const patch = useUi((s) => s.patchDraft);
  const setView = useUi((s) => s.setView);
  const set = (next: Partial<typeof slurm>) => patch({ slurm: { ...slurm, ...next } });
  if (error) return <div className="red">{describeError(error)}</div>;
  if (!clusters) return <div className="faint">Loading clusters…</div>;
  const picked = clusters.find((c) => c.name === slurm.cluster);
  // A job file may name a cluster this machine does not know: shown, and said so.
  const unknown = slurm.cluster !== '' && !picked;
  if (clusters.length === 0 && !unknown)
    return (
      <div className="inline-empty" data-testid="clusters-empty">
        No Slurm clusters yet. Add one (its login node, user and defaults) in Settings.
        <button
          className="btn btn-sm"
          data-testid="clusters-open-settings"
          onClick={() => setView('settings')}
        >
          Open Settings
        </button>
      </div>
    );
  const submitted = effectiveSlurm(slurm, picked);
  return (
    <>
      <div className="field">
        <label htmlFor="slurm-cluster">Cluster</label>
        <select
          id="slurm-cluster"
          className="select"
          data-testid="slurm-cluster"
          value={slurm.cluster}
          onChange={(e) => set({ cluster: e.target.value })}
        >
          <option value="">Pick a cluster…</option>
          {clusters.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name} — {c.user}@{c.host}
            </option>
          ))}
          {unknown && <option value={slurm.cluster}>{slurm.cluster} (not in Settings)</option>}
        </select>
        {unknown ? (
          <span className="field-error" data-testid="slurm-cluster-unknown">
            No cluster named {slurm.cluster} here: add it in Settings, or pick another.
          </span>
        ) : (
          <span className="hint">
            Each node is one allocation, submitted with sbatch over SSH to the login node.{' '}
            <button className="inline-link" onClick={() => setView('settings')}>
              Manage clusters
            </button>
          </span>
        )}
      </div>
      <div className="shape-grid slurm-grid">
        {SLURM_OVERRIDES.map((f) => {
          const problem = overrideProblem(f, slurm[f]);
          return (
            <div className="field" key={f}>
              <label htmlFor={`slurm-${f}`}>{OVERRIDE_LABEL[f]}</label>
              <input
                id={`slurm-${f}`}
                className={`input mono ${problem ? 'invalid' : ''}`}
                data-testid={`slurm-${f}`}
                spellCheck={false}
                autoComplete="off"
                placeholder={picked?.[f] ?? 'default'}
                value={slurm[f]}
                onChange={(e) => set({ [f]: e.target.value })}
              />
            </div>
          );
        })}
        <div className="field">
          <label htmlFor="slurm-gpus">GPUs per node</label>
          <input
            id="slurm-gpus"
            className="input tabular"
            data-testid="slurm-gpus"
            type="number"
            min={0}
            max={MAX_SLURM_GPUS}
            value={slurm.gpus}
            onChange={(e) =>
              set({
                gpus: Math.min(
                  MAX_SLURM_GPUS,
                  Math.max(0, Math.floor(Number(e.target.value) || 0)),
                ),
              })
            }
          />
        </div>
      </div>
      {picked && (
        <div className="hint" data-testid="slurm-summary">
          Submitted with{' '}
          {submitted.map((x, i) => (
            <span key={x.field}>
              {i > 0 && ', '}
              {SUMMARY_LABEL[x.field]}{' '}
              {x.value ? (
                <>
                  <span className="mono">{x.value}</span>
                  {x.from === 'cluster' && <span className="faint"> (cluster default)</span>}
                </>
              ) : (
                <span className="faint">the cluster’s default</span>
              )}
            </span>
          ))}
          {slurm.gpus > 0 ? `; --gres=gpu:${slurm.gpus}` : '; no GPUs asked'}.
        </div>
      )}
      <CountField hint="One allocation per node; Slurm's --time comes from the max duration." />
    </>
  );
}

import { useState } from 'react';
import type { LeaseView, NodeView } from '../../../src-main/contract';
import { GpuUsage } from '../../components/GpuUsage';
import { RunLink } from '../../components/RunLink';
import { LeaseBadge, StageBadge } from '../../components/StageBadge';
import { accrued, isLive, needsAttention } from '../../lib/billing';
import { clockTime, duration, logicalOf, money, perHour, runOf } from '../../lib/format';
import { idleEndsText, servedText } from '../../lib/warm';
import { ChevronIcon } from '../../shell/icons';
import { shortLeaseId } from '../../shell/teardown-progress';
import { canRaiseBid, interruptionBadge } from './bid-model';
import { capabilityEntries, hardwareSummary } from './hardware';
import { rowAccrued, type NodeRow } from './ledger-model';
import { StageClock, StageHistory, StageStrip } from './StageTimeline';
import { RaiseBidButton } from './RaiseBidDialog';
import { nodeAge } from './timeline';

export const LEDGER_COLUMNS = 10;

const FREE_PROVIDERS = new Set(['local', 'ssh']);

/** $/h of a lease: free for providers that never bill, unknown before the price is. */
function Rate({ provider, lease }: { provider: string; lease: LeaseView | null }) {
  if (lease?.pricePerHour != null) return <>{perHour(lease.pricePerHour)}</>;
  return <span className="faint">{FREE_PROVIDERS.has(provider) ? 'free' : '—'}</span>;
}

function LeaseCell(props: { lease: LeaseView | null; provider: string; node?: NodeView }) {
  const { lease, provider, node } = props;
  if (!lease && node?.stage === 'released')
    return (
      <span className="lg-passed" data-testid="released-to">
        lease passed to{' '}
        {node.releasedTo ? <RunLink runId={runOf(node.releasedTo)} /> : 'a later run'}
      </span>
    );
  if (!lease) return <span className="faint">none yet</span>;
  const stopped = interruptionBadge(lease);
  return (
    <span className="lg-lease-cell">
      <span className="mono lg-ellipsis" title={lease.leaseId ?? lease.label}>
        {shortLeaseId(lease.leaseId, provider)}
      </span>
      <LeaseBadge state={lease.state} />
      {stopped && (
        <span
          className={`badge ${stopped.colour}`}
          data-testid="lease-interruption"
          data-interruption={lease.interruption}
          title={stopped.title}
        >
          {stopped.text}
        </span>
      )}
    </span>
  );
}

export function canDestroy(row: NodeRow): boolean {
  const { stage } = row.node;
  if (stage === 'destroyed' || stage === 'destroying' || stage === 'released') return false;
  if (row.lease?.state === 'destroying') return false;
  return row.isLive;
}

/** How the ledger words a node that its own dead-man switch destroyed. */
const SELF_DESTROYED = 'destroyed by its own dead-man switch';

export function NodeRowView(props: {
  row: NodeRow;
  now: number;
  onDestroy: (row: NodeRow) => void;
}): React.JSX.Element {
  const { row, now } = props;
  const { node, lease } = row;
  const [isOpen, setOpen] = useState(false);
  const hw = hardwareSummary(node.capabilities);
  const age = nodeAge(node, now);
  return (
    <>
      <tr
        data-testid="node-row"
        data-node-id={node.id}
        data-stage={node.stage}
        className={`lg-node-row ${row.isLive ? '' : 'lg-is-ended'} ${isOpen ? 'lg-is-open' : ''} ${
          lease && needsAttention(lease) ? 'lg-is-alarm' : ''
        }`}
        onClick={(e) => {
          if (!(e.target as HTMLElement).closest('button')) setOpen(!isOpen);
        }}
      >
        <td className="lg-node-cell">
          <button
            className="lg-expander"
            aria-expanded={isOpen}
            aria-label={`${isOpen ? 'Hide' : 'Show'} details of ${node.logicalId}`}
            onClick={() => setOpen(!isOpen)}
          >
            <ChevronIcon size={12} />
          </button>
          <span className="lg-node-name">{node.logicalId || logicalOf(node.id)}</span>
        </td>
        <td className="dim">{node.provider}</td>
        <td>
          <LeaseCell lease={lease} provider={node.provider} node={node} />
        </td>
        <td className="lg-stage-cell">
          <span className="lg-stage-top">
            <StageBadge stage={node.stage} jobStatus={node.jobStatus} jobPhase={node.jobPhase} />
            <StageClock node={node} now={now} />
          </span>
          <StageStrip node={node} now={now} />
          <WarmLines node={node} lease={lease} now={now} />
          {node.destroyReason?.startsWith(SELF_DESTROYED) && (
            <span
              className="lg-self-destroyed"
              data-testid="self-destroyed"
              title={node.destroyReason}
            >
              {node.destroyReason}
            </span>
          )}
        </td>
        <td>
          {node.ready ? (
            <span className="badge green plain">ready</span>
          ) : (
            <span className="faint">no</span>
          )}
        </td>
        <td className="lg-hw-cell">
          {hw ? (
            <>
              <span className={hw.gpu ? '' : 'faint'}>{hw.gpu ?? 'no GPU found'}</span>
              {node.gpu && <GpuUsage gpu={node.gpu} />}
              <span className="lg-hw-host">{hw.host}</span>
            </>
          ) : (
            <span className="faint">not probed yet</span>
          )}
        </td>
        <td className="num">
          <Rate provider={node.provider} lease={lease} />
        </td>
        <td className="num">{money(rowAccrued(row, now))}</td>
        <td
          className="num dim"
          title={node.stages[0] ? `created ${clockTime(node.stages[0].at)}` : undefined}
        >
          {duration(age)}
        </td>
        <td className="lg-actions-cell">
          {canRaiseBid(lease) && <RaiseBidButton lease={lease} />}
          {canDestroy(row) && (
            <button
              className="btn btn-danger btn-sm"
              data-testid="node-destroy"
              onClick={() => props.onDestroy(row)}
            >
              Destroy
            </button>
          )}
        </td>
      </tr>
      {isOpen && (
        <tr className="lg-node-detail">
          <td colSpan={LEDGER_COLUMNS}>
            <NodeDetail row={row} now={now} />
          </td>
        </tr>
      )}
      {row.earlier.map((l) => (
        <LeaseRow key={l.label} lease={l} now={now} note="replaced" />
      ))}
    </>
  );
}

/** A node's part in a warm lease's life: warm now (its idle countdown and $/h), the runs
 *  its lease served, the earlier run's warm node it took over. */
function WarmLines(props: {
  node: NodeView;
  lease: LeaseView | null;
  now: number;
}): React.JSX.Element | null {
  const { node, lease, now } = props;
  const warm = lease?.warm && isLive(lease) ? lease.warm : null;
  const served = servedText(lease?.servedRuns);
  if (!warm && !served && !node.claimedFrom) return null;
  return (
    <span className="lg-warm-lines">
      {warm && (
        <span className="lg-warm" data-testid="warm-lease">
          <span className="badge plain warm">warm</span>
          <span className="dim">{idleEndsText(warm.idleEndsAt, now)}</span>
          <span className="dim">
            · <Rate provider={node.provider} lease={lease} />
          </span>
        </span>
      )}
      {node.claimedFrom && (
        <span className="lg-claimed" data-testid="claimed-from">
          warm node from <RunLink runId={node.claimedFrom.runId} />
        </span>
      )}
      {served && (
        <span className="lg-served mono" data-testid="served-runs" title="Runs this lease served">
          {served}
        </span>
      )}
    </span>
  );
}

function NodeDetail({ row, now }: { row: NodeRow; now: number }): React.JSX.Element {
  const { node, lease } = row;
  const caps = capabilityEntries(node.capabilities);
  const job = node.jobStatus
    ? `${node.jobStatus}${node.jobPhase ? ` · ${node.jobPhase.replace('_', ' ')}` : ''}${
        node.exitCode !== null ? ` · exit ${node.exitCode}` : ''
      }`
    : null;
  return (
    <div className="lg-detail">
      <section>
        <h4>Stage timeline</h4>
        <StageHistory node={node} now={now} />
      </section>
      <section>
        <h4>Node</h4>
        <dl className="lg-facts">
          {node.failedReason && (
            <>
              <dt>Failed</dt>
              <dd className="red">{node.failedReason}</dd>
            </>
          )}
          {node.destroyReason && (
            <>
              <dt>Destroyed</dt>
              <dd>{node.destroyReason}</dd>
            </>
          )}
          {node.claimedFrom && (
            <>
              <dt>From</dt>
              <dd>
                the warm node of <RunLink runId={node.claimedFrom.runId} /> (no create, no
                bootstrap)
              </dd>
            </>
          )}
          {node.stage === 'released' && node.releasedTo && (
            <>
              <dt>Passed to</dt>
              <dd>
                <RunLink runId={runOf(node.releasedTo)} />, which holds the lease now
              </dd>
            </>
          )}
          {lease?.warm && isLive(lease) && (
            <>
              <dt>Warm</dt>
              <dd>
                {idleEndsText(lease.warm.idleEndsAt, now)}; the next run declaring{' '}
                <span className="mono">{lease.warm.hostKey}</span> claims it
              </dd>
            </>
          )}
          {lease?.servedRuns && lease.servedRuns.length > 1 && (
            <>
              <dt>Served</dt>
              <dd className="mono">{lease.servedRuns.join(', ')}</dd>
            </>
          )}
          <dt>Label</dt>
          <dd className="mono">{node.label ?? '—'}</dd>
          <dt>Lease</dt>
          <dd>
            <span className="mono">{lease?.leaseId ?? '—'}</span>
            {lease?.reason && <span className="dim"> · {lease.reason}</span>}
          </dd>
          {lease?.lastError && (
            <>
              <dt>Last error</dt>
              <dd className="red">{lease.lastError}</dd>
            </>
          )}
          {lease?.deadMan && isLive(lease) && (
            <>
              <dt>Dead-man</dt>
              <dd title="The node destroys itself at this time unless Tender renews it">
                in {duration(Math.max(0, lease.deadMan.firesAt - now))}
                <span className="dim"> (at {clockTime(lease.deadMan.firesAt)}) unless renewed</span>
              </dd>
            </>
          )}
          <dt>Job</dt>
          <dd>{job ?? '—'}</dd>
          <dt>Agent</dt>
          <dd>
            {node.agentId ? <span className="mono">{node.agentId}</span> : '—'}
            {node.linkState !== 'none' && <span className="dim"> · link {node.linkState}</span>}
          </dd>
          {node.bootstrapStage && (
            <>
              <dt>Bootstrap</dt>
              <dd>{node.bootstrapStage.replace(/_/g, ' ')}</dd>
            </>
          )}
        </dl>
      </section>
      <section>
        <h4>Capabilities</h4>
        {caps.length === 0 ? (
          <p className="faint">Reported by the agent when it joins.</p>
        ) : (
          <dl className="lg-facts lg-caps">
            {caps.map(([k, v]) => (
              <div key={k} className="lg-cap">
                <dt className="mono">{k}</dt>
                <dd className="mono">{v}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
    </div>
  );
}

/** A lease no node row holds: one a node replaced, or one without a run (a destroyed orphan). */
export function LeaseRow(props: {
  lease: LeaseView;
  now: number;
  note: string;
}): React.JSX.Element {
  const { lease, now } = props;
  const end = lease.destroyedAt ?? (isLive(lease) ? now : null);
  return (
    <tr
      data-testid="lease-row"
      data-label={lease.label}
      data-lease-state={lease.state}
      className={`lg-lease-row ${isLive(lease) ? '' : 'lg-is-ended'}`}
    >
      <td className="lg-node-cell">
        <span className="lg-lease-note">
          {lease.nodeId ? `${logicalOf(lease.nodeId)} · ${props.note}` : props.note}
        </span>
      </td>
      <td className="dim">{lease.provider}</td>
      <td>
        <LeaseCell lease={lease} provider={lease.provider} />
      </td>
      <td colSpan={3} className="lg-lease-why">
        {lease.lastError ? (
          <span className="red">{lease.lastError}</span>
        ) : (
          <span className="dim">{lease.reason ?? lease.label}</span>
        )}
      </td>
      <td className="num">
        <Rate provider={lease.provider} lease={lease} />
      </td>
      <td className="num">{money(accrued(lease, now))}</td>
      <td className="num dim">
        {lease.createdAt !== null && end !== null ? duration(end - lease.createdAt) : '—'}
      </td>
      <td />
    </tr>
  );
}

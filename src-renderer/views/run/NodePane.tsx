import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import type { GpuIdleRule, NodeView } from '../../../src-main/contract';
import { GpuUsage } from '../../components/GpuUsage';
import { GpuIdleRuleNote } from '../../components/GpuIdleRule';
import { RunLink } from '../../components/RunLink';
import { StageBadge } from '../../components/StageBadge';
import { runOf } from '../../lib/format';
import { toast } from '../../components/toasts';
import { bytes } from '../../lib/format';
import { copyText } from './clipboard';
import { HostSetupField } from './HostSetupField';
import { CopyIcon, FollowIcon, LogIcon, TerminalIcon } from './icons';
import type { LogRouter } from './log-router';
import { NodeTerminal } from './NodeTerminal';
import { NodeEditors } from '../ssh/NodeEditors';
import { provisionWaitText } from './provision-wait';
import { PullStatus } from './PullStatus';
import { useNow } from '../../lib/use-now';
import { terminalWhyNot } from './terminal-why';
import { PaneSearch, WholeLogResults, type WholeLog } from './PaneSearch';
import { useLogTerminal, type LogTerminal } from './use-log-terminal';
import { LOG_SCROLLBACK } from './xterm-theme';

/** One node: its state in the header, its log in an xterm, and a shell on it in a tab.
 *  `rank`: its rank in a distributed run (null: none). */
export function NodePane(props: {
  runId: string;
  node: NodeView;
  router: LogRouter;
  rank?: number | null;
  /** The run's GPU idle rule (`[policy] gpu_idle`), shown beside the GPU chart. */
  gpuIdle?: GpuIdleRule;
}): React.JSX.Element {
  const { runId, node, router } = props;
  const host = useRef<HTMLDivElement>(null);
  const log = useLogTerminal(host, runId, node.id, router);
  const [tab, setTab] = useState<'log' | 'terminal'>('log');
  const [hasOpenedTerminal, setHasOpenedTerminal] = useState(false);
  const [whole, setWhole] = useState<WholeLog | null>(null);
  const terminalWhy = terminalWhyNot(node);
  const terminalOk = terminalWhy === null;
  // A node that goes away takes its shell with it (the server closes it too): back to the log.
  useEffect(() => {
    if (!terminalOk) setTab('log');
  }, [terminalOk]);

  // A phase that ends (setup, run, collecting) may have ended in a dropped batch: check.
  const phase = `${node.jobPhase}/${node.exitCode}`;
  const seenPhase = useRef(phase);
  const { resync } = log;
  useEffect(() => {
    if (seenPhase.current === phase) return;
    seenPhase.current = phase;
    resync();
  }, [phase, resync]);

  // Back on the log tab, xterm measures again (it was hidden while the terminal showed).
  useEffect(() => {
    if (tab === 'log') log.terminal?.fit();
  }, [tab, log.terminal]);

  return (
    <section className="node-pane card" data-testid="log-pane" data-node-id={node.id}>
      <NodeHeader node={node} rank={props.rank ?? null} gpuIdle={props.gpuIdle}>
        <div className="pane-tabs" role="tablist">
          <button
            role="tab"
            aria-selected={tab === 'log'}
            className="pane-tab"
            onClick={() => setTab('log')}
          >
            <LogIcon /> Log
          </button>
          <button
            role="tab"
            aria-selected={tab === 'terminal'}
            className="pane-tab"
            data-testid="terminal-tab"
            disabled={!terminalOk}
            title={terminalWhy ?? 'A shell on this node, in its workspace'}
            onClick={() => {
              setHasOpenedTerminal(true);
              setTab('terminal');
            }}
          >
            <TerminalIcon /> Terminal
          </button>
        </div>
      </NodeHeader>
      <PullStatus node={node} />
      {props.gpuIdle && (
        <GpuIdleRuleNote
          rule={props.gpuIdle}
          fired={node.gpuIdleFired}
          gpuCount={node.capabilities ? Number(node.capabilities['gpu.count'] ?? 0) : null}
        />
      )}
      <div className="pane-toolbar">
        {tab === 'terminal' && (
          <span className="pane-note">
            A shell on {node.logicalId}, in the job&apos;s workspace. It closes when you leave this
            run.
          </span>
        )}
        {tab === 'log' && log.terminal && (
          <>
            <PaneSearch
              terminal={log.terminal}
              runId={runId}
              nodeId={node.id}
              onJump={() => log.setFollowing(false)}
              onWholeLog={setWhole}
            />
            <div className="grow" />
            {log.isCatchingUp && (
              <span className="pane-loading">
                {log.readingCount
                  ? `reading the stored log: ${log.readingCount.toLocaleString('en-US')} lines…`
                  : 'reading log…'}
              </span>
            )}
            <button
              className={`btn btn-sm follow ${log.isFollowing ? 'on' : ''}`}
              aria-pressed={log.isFollowing}
              title="Keep the newest line in view (scrolling up turns this off)"
              onClick={() => log.setFollowing(!log.isFollowing)}
            >
              <FollowIcon /> Follow
            </button>
            <button
              className="btn btn-sm"
              title="Copy the selection, or everything this pane holds"
              onClick={() => void copyLog(log.terminal!)}
            >
              <CopyIcon /> Copy
            </button>
          </>
        )}
      </div>
      <div className="pane-body">
        <div className="xterm-host" ref={host} hidden={tab !== 'log'} />
        {tab === 'log' && whole && log.terminal && (
          <WholeLogResults
            whole={whole}
            terminal={log.terminal}
            onJump={() => log.setFollowing(false)}
            onClose={() => setWhole(null)}
          />
        )}
        {hasOpenedTerminal && terminalOk && (
          <div className="pane-terminal" hidden={tab !== 'terminal'}>
            <NodeTerminal node={node} isVisible={tab === 'terminal'} />
          </div>
        )}
      </div>
      {terminalOk && <HostSetupField node={node} />}
      <NodeEditors node={node} />
      <div className="pane-foot">
        {tab === 'log'
          ? `Keeps the last ${LOG_SCROLLBACK.toLocaleString('en-US')} lines; the whole log is on disk (Whole log searches it).`
          : 'What you type runs on the node. The shell closes when you leave this run.'}
      </div>
    </section>
  );
}

function NodeHeader(props: {
  node: NodeView;
  rank: number | null;
  gpuIdle?: GpuIdleRule | undefined;
  children: React.ReactNode;
}): React.JSX.Element {
  const { node, rank } = props;
  const caps = node.capabilities;
  const gpu = caps?.['gpu.model'] ? `${caps['gpu.count'] ?? 1}× ${caps['gpu.model']}` : null;
  // The machine's TENDER_CACHE after its latest run: what the next run finds there.
  const cache = node.cacheBytes != null ? `cache ${bytes(node.cacheBytes)}` : null;
  return (
    <header className="pane-head">
      <strong className="mono">{node.logicalId}</strong>
      {rank !== null && (
        <span
          className="badge plain pane-rank"
          data-testid="node-rank"
          title={`TENDER_NODE_RANK=${rank}${rank === 0 ? ': MASTER_ADDR is this node' : ''}`}
        >
          rank {rank}
        </span>
      )}
      <StageBadge stage={node.stage} jobStatus={node.jobStatus} jobPhase={node.jobPhase} />
      {node.jobPhase && node.jobPhase !== 'done' && (
        <span className="badge plain blue">{node.jobPhase.replace('_', ' ')}</span>
      )}
      <ProvisionWait node={node} />
      {node.exitCode !== null && (
        <span
          className={`badge plain ${node.exitCode === 0 ? 'green' : 'red'}`}
          data-testid="node-exit"
        >
          exit {node.exitCode}
        </span>
      )}
      {node.linkState === 'lost' && <span className="badge amber">link lost, reconnecting</span>}
      {node.gpu && (
        <GpuUsage
          gpu={node.gpu}
          {...(props.gpuIdle ? { idleBelow: props.gpuIdle.belowPct } : {})}
        />
      )}
      {node.claimedFrom && (
        <span
          className="pane-warm"
          data-testid="claimed-from"
          title="This node took over a node an earlier run kept: no create, no bootstrap"
        >
          warm node from <RunLink runId={node.claimedFrom.runId} />
        </span>
      )}
      {node.stage === 'released' && node.releasedTo && (
        <span className="pane-warm" data-testid="released-to">
          lease passed to <RunLink runId={runOf(node.releasedTo)} />
        </span>
      )}
      <span className="pane-meta">
        {[node.leaseId, gpu, caps?.hostname, cache].filter(Boolean).join(' · ')}
      </span>
      {node.failedReason ? (
        <span className="pane-failed" title={node.failedReason}>
          {node.failedReason}
        </span>
      ) : (
        node.destroyReason &&
        node.stage === 'destroyed' && (
          <span className="pane-meta" title={`Destroyed: ${node.destroyReason}`}>
            · {node.destroyReason}
          </span>
        )
      )}
      <div className="pane-head-end">{props.children}</div>
    </header>
  );
}

/** The time a provisioning lease has taken, ticking; the provider's words are in the log. */
function ProvisionWait({ node }: { node: NodeView }): React.JSX.Element | null {
  const now = useNow();
  const text = provisionWaitText(node, now);
  if (text === null) return null;
  return (
    <span className="pane-meta" data-testid="provision-wait" title="Since the lease was asked for">
      {text}
    </span>
  );
}

async function copyLog(t: LogTerminal): Promise<void> {
  let text = t.term.getSelection();
  const isSelection = text.length > 0;
  if (!isSelection) {
    const buf = t.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) {
      const line = buf.getLine(i);
      if (!line) continue;
      const s = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += s;
      else lines.push(s);
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    text = lines.join('\n');
  }
  const ok = await copyText(text);
  toast(
    ok
      ? isSelection
        ? 'Copied the selection'
        : `Copied ${text.split('\n').length.toLocaleString('en-US')} lines`
      : 'The clipboard refused the copy',
    ok ? 'info' : 'error',
  );
}

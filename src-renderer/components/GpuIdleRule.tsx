import {
  type GpuIdleFired,
  type GpuIdleRule,
  gpuIdleFiredText,
  gpuIdleRuleText,
} from '../../src-main/contract';
import { clockTime } from '../lib/format';
import './gpu-usage.css';

const FIRED_BADGE: Record<GpuIdleFired['did'], { tone: string; words: string }> = {
  notified: { tone: 'amber', words: 'GPUs idle: notified' },
  stopped_job: { tone: 'red', words: 'GPUs idle: job stopped' },
  tearing_down: { tone: 'red', words: 'GPUs idle: node torn down' },
};

/** The run's GPU idle rule beside a node's GPU chart — "GPU idle rule: stop after 30m
 *  under 10%" — and, once the node's agent fired it, what it did and when. */
export function GpuIdleRuleNote(props: {
  rule: GpuIdleRule;
  fired: GpuIdleFired | null | undefined;
  /** The node's probed GPU count; null: not probed yet (its agent has not joined). */
  gpuCount: number | null;
}): React.JSX.Element {
  const { rule, fired } = props;
  const badge = fired ? FIRED_BADGE[fired.did] : null;
  return (
    <div
      className="gpu-idle-rule"
      data-testid="gpu-idle-rule"
      title={`${gpuIdleRuleText(rule)}: enforced by the node's agent, whether or not Tender is connected`}
    >
      <span className="gpu-idle-rule-text">{gpuIdleRuleText(rule)}</span>
      {fired && badge && (
        <span
          className={`badge plain ${badge.tone}`}
          data-testid="gpu-idle-fired"
          title={`${clockTime(fired.at)}: ${gpuIdleFiredText(fired)}`}
        >
          {badge.words} at {clockTime(fired.at)}
        </span>
      )}
      {fired && <span className="gpu-idle-rule-why">{gpuIdleFiredText(fired)}</span>}
      {props.gpuCount === 0 && (
        <span
          className="badge plain amber"
          data-testid="gpu-idle-no-gpu"
          title="nvidia-smi found no GPU on this node: no sample can ever be idle"
        >
          cannot apply: no GPU on this node
        </span>
      )}
    </div>
  );
}

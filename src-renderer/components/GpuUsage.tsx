import { gpuLines, gpuText, type NodeGpu } from '../../src-main/contract';
import { clockTime } from '../lib/format';
import { Sparkline } from './Sparkline';
import './gpu-usage.css';

/** A node's GPUs now: the last minutes' utilisation as a sparkline, "GPU 87% · 31/80 GB",
 *  and "stalled?" when its job is quiet on idle GPUs (a question, never acted on). */
export function GpuUsage({
  gpu,
  idleBelow,
}: {
  gpu: NodeGpu;
  /** The run's GPU idle rule's threshold (percent): drawn on the sparkline. */
  idleBelow?: number;
}): React.JSX.Element {
  const title = [
    ...gpuLines(gpu),
    gpu.stale
      ? `No sample since ${clockTime(gpu.at)} (the node's log is not streaming)`
      : `Sampled at ${clockTime(gpu.at)}`,
  ].join('\n');
  return (
    <span
      className={`gpu-usage${gpu.stale ? ' is-stale' : ''}`}
      data-testid="gpu-usage"
      title={title}
    >
      <Sparkline
        points={gpu.history}
        label="GPU utilisation over the last minutes"
        {...(idleBelow !== undefined ? { threshold: idleBelow } : {})}
      />
      <span className="gpu-usage-text">{gpuText(gpu)}</span>
      {gpu.stalled && (
        <span
          className="badge amber plain"
          data-testid="gpu-stalled"
          title="No log line for 10 minutes and every GPU idle: the job may be hung. Tender does not stop it for this."
        >
          stalled?
        </span>
      )}
    </span>
  );
}

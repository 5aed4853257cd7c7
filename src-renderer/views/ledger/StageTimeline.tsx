import type { NodeView } from '../../../src-main/contract';
import { stageLabel } from '../../components/StageBadge';
import { clockTime, duration } from '../../lib/format';
import { deadlineLeft, isEndedStage, stageSpans, timelineSteps } from './timeline';

/** The current attempt's stages as a strip of steps; each step says its time on hover. */
export function StageStrip({ node, now }: { node: NodeView; now: number }): React.JSX.Element {
  const { steps, attempt } = timelineSteps(node.stages, now);
  return (
    <span className="lg-strip" aria-label="stage timeline">
      {steps.map((s) => (
        <span
          key={s.stage}
          className={`lg-strip-step lg-${s.state} lgs-${s.stage}`}
          title={`${stageLabel(s.stage)}${
            s.ms === null
              ? s.state === 'skipped'
                ? ' · skipped'
                : ' · not reached'
              : ` · ${duration(s.ms)}`
          }`}
        />
      ))}
      {attempt > 1 && <span className="lg-strip-attempt">attempt {attempt}</span>}
    </span>
  );
}

/** How long the node is in its stage, and when that stage gives up. */
export function StageClock({ node, now }: { node: NodeView; now: number }): React.JSX.Element {
  const left = deadlineLeft(node, now);
  const isEnded = isEndedStage(node.stage);
  return (
    <span className="lg-stage-clock">
      <span className="dim">
        {isEnded ? `at ${clockTime(node.stageSince)}` : duration(now - node.stageSince)}
      </span>
      {left !== null && (
        <span
          className={`lg-deadline ${left < 0 ? 'lg-over' : left < 60_000 ? 'lg-soon' : ''}`}
          title={`This stage gives up at ${clockTime(node.deadlineAt!)}`}
        >
          {left < 0 ? `over by ${duration(-left)}` : `gives up in ${duration(left)}`}
        </span>
      )}
    </span>
  );
}

/** Every stage the node went through: when it entered, how long it stayed. */
export function StageHistory({ node, now }: { node: NodeView; now: number }): React.JSX.Element {
  const spans = stageSpans(node.stages, now);
  // Log scale: a stage of 4 ms and one of 4 hours both stay visible.
  const scale = Math.log1p(Math.max(1, ...spans.map((s) => s.ms)));
  const left = deadlineLeft(node, now);
  return (
    <table className="lg-history">
      <tbody>
        {spans.map((s, i) => (
          <tr key={i} className={s.isCurrent ? 'lg-current' : ''}>
            <td className="lg-history-stage">
              <span className={`lg-dot lgs-${s.stage}`} />
              {stageLabel(s.stage)}
            </td>
            <td className="mono faint">{clockTime(s.from)}</td>
            <td className="num lg-history-ms">
              {isEndedStage(s.stage) ? '' : s.isCurrent ? `${duration(s.ms)} so far` : fine(s.ms)}
            </td>
            <td className="lg-history-bar">
              {!isEndedStage(s.stage) && (
                <span
                  style={{ width: `${Math.max(3, (100 * Math.log1p(s.ms)) / scale)}%` }}
                  className={`lgs-${s.stage}`}
                />
              )}
            </td>
            <td className="lg-history-note">
              {s.isCurrent && left !== null && (
                <span
                  className={`lg-deadline ${left < 0 ? 'lg-over' : left < 60_000 ? 'lg-soon' : ''}`}
                >
                  {left < 0
                    ? `deadline passed ${duration(-left)} ago`
                    : `gives up in ${duration(left)}`}
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Durations below a second matter here (a stage can take 4 ms): show them. */
function fine(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : duration(ms);
}

import {
  NODE_MAIN_PATH,
  NODE_OFF_PATH,
  type NodeStage,
  type NodeView,
} from '../../../src-main/contract';

const MAIN_PATH: readonly NodeStage[] = NODE_MAIN_PATH;
/** Shown after the main path, each once reached. */
const OFF_PATH: readonly NodeStage[] = NODE_OFF_PATH;

/** Stages after which nothing more happens to the node (no time accrues in them):
 *  destroyed, or released (its lease passed to a later run's node). */
const TERMINAL: readonly NodeStage[] = ['destroyed', 'released'];

/** The node's part is over: its lease is gone or another run's node holds it. */
export function isEndedStage(stage: NodeStage): boolean {
  return TERMINAL.includes(stage);
}

/** One stay in a stage: when it began and ended (now, for the current one). */
export interface StageSpan {
  stage: NodeStage;
  from: number;
  to: number;
  ms: number;
  isCurrent: boolean;
}

/** Every stage the node went through with the time spent in it. A stage entered again
 *  (a replacement lease after a failed boot) is its own span. */
export function stageSpans(stages: NodeView['stages'], now: number): StageSpan[] {
  return stages.map((s, i) => {
    const next = stages[i + 1];
    const isCurrent = next === undefined;
    const to = next ? next.at : TERMINAL.includes(s.stage) ? s.at : Math.max(now, s.at);
    return { stage: s.stage, from: s.at, to, ms: to - s.at, isCurrent };
  });
}

export type StepState = 'done' | 'current' | 'skipped' | 'pending';

export interface TimelineStep {
  stage: NodeStage;
  state: StepState;
  /** Time spent in the stage; null when it was never entered. */
  ms: number | null;
}

/** The current attempt's path as steps: the main path (stages jumped over are `skipped`,
 *  stages not reached yet `pending`), then the off-path stages the node entered. Earlier
 *  attempts (before a replacement) are counted, not drawn. */
export function timelineSteps(
  stages: NodeView['stages'],
  now: number,
): { steps: TimelineStep[]; attempt: number } {
  const spans = stageSpans(stages, now);
  let start = 0;
  let attempt = 1;
  spans.forEach((s, i) => {
    if (i > 0 && spans[i - 1]!.stage === 'destroyed') {
      start = i;
      attempt++;
    }
  });
  const current = spans.slice(start);
  const timeIn = (stage: NodeStage) =>
    current.filter((s) => s.stage === stage).reduce<number | null>((t, s) => (t ?? 0) + s.ms, null);
  const last = current[current.length - 1];
  const lastMain = Math.max(-1, ...current.map((s) => MAIN_PATH.indexOf(s.stage)));
  const steps: TimelineStep[] = MAIN_PATH.map((stage, i) => {
    const ms = timeIn(stage);
    if (last?.stage === stage) return { stage, state: 'current', ms };
    if (ms !== null) return { stage, state: 'done', ms };
    return { stage, state: i < lastMain ? 'skipped' : 'pending', ms: null };
  });
  for (const stage of OFF_PATH) {
    const ms = timeIn(stage);
    if (ms === null) continue;
    steps.push({ stage, state: last?.stage === stage ? 'current' : 'done', ms });
  }
  return { steps, attempt };
}

/** Milliseconds until the current stage gives up (negative once overdue); null without one. */
export function deadlineLeft(node: Pick<NodeView, 'deadlineAt'>, now: number): number | null {
  return node.deadlineAt === null ? null : node.deadlineAt - now;
}

/** How long the node has existed: to now while it is alive, else to when it ended. */
export function nodeAge(node: Pick<NodeView, 'stages' | 'stage'>, now: number): number {
  const first = node.stages[0];
  const last = node.stages[node.stages.length - 1];
  if (!first || !last) return 0;
  const hasEnded = isEndedStage(node.stage) || node.stage === 'failed';
  return (hasEnded ? last.at : now) - first.at;
}

import type { ComposerDraft } from '../../store/ui';
import { parseSweepAxes } from './sweep-axes';

/** Rank 0's port for the others when the field is left empty (the job file's default). */
export const DEFAULT_MASTER_PORT = 29500;

/** A distributed job runs one rank per node: it needs this many nodes at least. */
export const MIN_RANKS = 2;

/** The Master port field as `master_port`: empty is the default; NaN when it is no port
 *  (`masterPortProblem` says so). */
export function masterPortValue(typed: string): number {
  const t = typed.trim();
  if (t === '') return DEFAULT_MASTER_PORT;
  return /^\d{1,5}$/.test(t) && Number(t) >= 1 && Number(t) <= 65535 ? Number(t) : NaN;
}

/** What is wrong with the Master port field, or null. */
export function masterPortProblem(typed: string): string | null {
  return Number.isNaN(masterPortValue(typed))
    ? 'The master port is a number from 1 to 65535'
    : null;
}

/** Whether the draft is a sweep: axes typed, or cells a loaded file listed. */
export function isSweepDraft(draft: Pick<ComposerDraft, 'sweep' | 'sweepCells'>): boolean {
  return Object.keys(parseSweepAxes(draft.sweep).axes).length > 0 || draft.sweepCells.length > 0;
}

/** Why a distributed draft cannot run as it stands (what the job file loader refuses), or
 *  null; null for a draft that is not distributed. `nodes`: how many the pool asks for. */
export function distributedProblem(
  draft: Pick<ComposerDraft, 'distributed' | 'masterPort' | 'sweep' | 'sweepCells' | 'cache'>,
  nodes: number,
): string | null {
  if (!draft.distributed) return null;
  if (nodes < MIN_RANKS) return `A distributed job needs ${MIN_RANKS} nodes or more`;
  if (isSweepDraft(draft)) return 'A distributed job cannot also be a sweep';
  if (draft.cache) return 'A distributed job cannot reuse completed outputs (cache): turn it off';
  return masterPortProblem(draft.masterPort);
}

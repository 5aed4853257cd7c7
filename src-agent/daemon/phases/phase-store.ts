// `D/phases/<phase>.json`, always replaced atomically so a reader never sees half a state.
import { mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../atomic-file';
import { type NodePaths, phaseFile } from '../../wire/paths';
import { PHASES, type Phase, type PhaseState } from '../../wire/protocol';

export function writePhase(paths: NodePaths, state: PhaseState): void {
  mkdirSync(paths.phases, { recursive: true });
  writeFileAtomic(phaseFile(paths, state.phase), `${JSON.stringify(state)}\n`);
}

/** The phases a previous daemon recorded (unreadable files are treated as absent). */
export function readPhases(paths: NodePaths): Partial<Record<Phase, PhaseState>> {
  const out: Partial<Record<Phase, PhaseState>> = {};
  for (const phase of PHASES) {
    try {
      const state = JSON.parse(readFileSync(phaseFile(paths, phase), 'utf8')) as PhaseState;
      if (state.phase === phase) out[phase] = state;
    } catch {
      // never started, or unreadable: start afresh
    }
  }
  return out;
}

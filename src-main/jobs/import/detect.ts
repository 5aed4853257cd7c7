import { BadInputError } from '../../base/bad-input-error';
import { isDict } from './values';

export type TaskTool = 'skypilot' | 'dstack';

/** Keys that make a mapping a SkyPilot task (a dstack configuration has `type:`). */
export const SKYPILOT_KEYS = [
  'run',
  'setup',
  'resources',
  'num_nodes',
  'envs',
  'workdir',
  'file_mounts',
] as const;

const EXPECTED = `expected a SkyPilot task (a mapping with one of ${SKYPILOT_KEYS.join(', ')}) or a dstack configuration (type: task)`;

export interface Detected {
  tool: TaskTool;
  doc: Record<string, unknown>;
  /** How many documents the file holds: more than one is a SkyPilot pipeline. */
  documents: number;
}

/** Which tool wrote the file, by its content: a `type:` key is dstack's; SkyPilot's tasks
 *  have none. Anything else is bad input naming what was expected. */
export function detectTool(docs: unknown[], file: string): Detected {
  const first = docs[0];
  if (first === undefined)
    throw BadInputError.at(file, undefined, `the file is empty: ${EXPECTED}`);
  if (!isDict(first)) throw BadInputError.at(file, undefined, `not a mapping: ${EXPECTED}`);
  if ('type' in first) return { tool: 'dstack', doc: first, documents: docs.length };
  if (
    SKYPILOT_KEYS.some((k) => k in first) ||
    (docs.length > 1 && docs.some((d) => isDict(d) && SKYPILOT_KEYS.some((k) => k in d)))
  )
    return { tool: 'skypilot', doc: first, documents: docs.length };
  throw BadInputError.at(
    file,
    undefined,
    `neither a SkyPilot task nor a dstack configuration: ${EXPECTED}`,
    'a Tender job file is TOML (tender.toml); see docs/import.md for what can be imported',
  );
}

/** Whether text read as YAML looks like a task: for files whose name does not say. */
export function looksLikeTask(doc: unknown): boolean {
  return isDict(doc) && ('type' in doc || SKYPILOT_KEYS.some((k) => k in doc));
}

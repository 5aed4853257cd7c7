import path from 'node:path';
import { BadInputError } from '../../base/bad-input-error';
import type { ImportContext } from './context';
import { detectTool, type TaskTool } from './detect';
import { importDstack } from './dstack';
import { Outcomes, type Outcome } from './key-outcomes';
import { importSkypilot } from './skypilot';
import { draftToToml } from './to-toml';
import { readYamlDocuments } from './yaml-read';

export interface Conversion {
  tool: TaskTool;
  /** The job file text; null when a key was refused. */
  toml: string | null;
  outcomes: Outcome[];
  /** Secret values the YAML holds (never in `toml`): a direct run's fallback environment. */
  secretDefaults: Record<string, string>;
  secretNames: string[];
}

const TOOL_NAME: Record<TaskTool, string> = { skypilot: 'SkyPilot task', dstack: 'dstack task' };

/**
 * A SkyPilot or dstack task's YAML as Tender job file text and what became of each key.
 * Pure: reads nothing but `text` and `ctx`. Unusable YAML or a file that is neither tool's
 * throws BadInputError; a refused key leaves `toml` null (see `refusalError`).
 */
export function convertTask(text: string, ctx: ImportContext): Conversion {
  const docs = readYamlDocuments(text, ctx.file);
  const { tool, doc, documents } = detectTool(docs, ctx.file);
  const imported = tool === 'skypilot' ? importSkypilot(doc, ctx) : importDstack(doc, ctx);
  const { draft } = imported;
  // A pipeline is refused whole: its first document may be only a header.
  const outcomes = documents > 1 ? new Outcomes() : imported.outcomes;
  if (documents > 1)
    outcomes.refused(
      `(${documents} documents)`,
      `a SkyPilot pipeline of ${documents} chained tasks: Tender imports one task`,
      'split it into one file per task and run them in order',
    );
  const order = Object.keys(doc);
  const rank = (o: Outcome) => {
    const top = /^[^.[]+/.exec(o.path)?.[0] ?? '';
    const i = order.indexOf(top);
    return i < 0 ? order.length : i;
  };
  const sorted = outcomes.list
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i)
    .map((x) => x.o);
  const secretNames = Object.entries(draft.job.env)
    .filter(([, v]) => typeof v !== 'string')
    .map(([k]) => k);
  const header = [
    `Converted by \`tender import\` from ${path.basename(ctx.file)} (a ${TOOL_NAME[tool]}).`,
    `What each key became, and why: tender import ${path.basename(ctx.file)} --explain`,
  ];
  return {
    tool,
    toml: outcomes.refusals.length > 0 ? null : draftToToml(draft, header),
    outcomes: sorted,
    secretDefaults: imported.secretDefaults,
    secretNames,
  };
}

/** The error a refused conversion exits with: the first refusal, its fix, and a count. */
export function refusalError(conversion: Conversion, file: string): BadInputError {
  const refused = conversion.outcomes.filter((o) => o.kind === 'refused');
  const first = refused[0];
  if (!first) return new BadInputError(`${file}: not converted`);
  const more =
    refused.length > 1
      ? ` (and ${refused.length - 1} more: tender import ${path.basename(file)} --explain lists them)`
      : '';
  return new BadInputError(`${file}: ${first.path}: ${first.why}${more}`, {
    file,
    hint: first.fix,
  });
}

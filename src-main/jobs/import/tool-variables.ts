import type { JobDraft } from './draft';
import type { Outcomes } from './key-outcomes';

/**
 * Variables SkyPilot and dstack give every task. Tender sets the rank, node-count and
 * address aliases on distributed runs (docs/distributed.md); for the rest, and for a
 * single node, the script gets a fallback line — only for names the script uses.
 */
const FALLBACKS: Record<string, string> = {
  SKYPILOT_NODE_RANK: '${SKYPILOT_NODE_RANK:-0}',
  SKYPILOT_NUM_NODES: '${SKYPILOT_NUM_NODES:-1}',
  SKYPILOT_NODE_IPS: '${SKYPILOT_NODE_IPS:-127.0.0.1}',
  SKYPILOT_NUM_GPUS_PER_NODE:
    '${SKYPILOT_NUM_GPUS_PER_NODE:-${TENDER_GPUS_PER_NODE:-$(nvidia-smi -L 2>/dev/null | wc -l)}}',
  SKYPILOT_TASK_ID: '${SKYPILOT_TASK_ID:-$TENDER_JOB_ID}',
  DSTACK_NODE_RANK: '${DSTACK_NODE_RANK:-0}',
  DSTACK_NODES_NUM: '${DSTACK_NODES_NUM:-1}',
  DSTACK_MASTER_NODE_IP: '${DSTACK_MASTER_NODE_IP:-127.0.0.1}',
  DSTACK_NODES_IPS: '${DSTACK_NODES_IPS:-127.0.0.1}',
  DSTACK_GPUS_PER_NODE:
    '${DSTACK_GPUS_PER_NODE:-${TENDER_GPUS_PER_NODE:-$(nvidia-smi -L 2>/dev/null | wc -l)}}',
  DSTACK_GPUS_NUM:
    '${DSTACK_GPUS_NUM:-$(( ${DSTACK_GPUS_PER_NODE:-${TENDER_GPUS_PER_NODE:-$(nvidia-smi -L 2>/dev/null | wc -l)}} * ${DSTACK_NODES_NUM:-1} ))}',
  DSTACK_RUN_NAME: '${DSTACK_RUN_NAME:-$TENDER_JOB_ID}',
};

/** Prefixes `setup` and `run` with fallbacks for the tool variables each one reads. */
export function addToolVariables(
  draft: JobDraft,
  at: Record<'setup' | 'run', string>,
  out: Outcomes,
): void {
  for (const part of ['setup', 'run'] as const) {
    const script = draft.job[part];
    if (!script) continue;
    const used = Object.keys(FALLBACKS).filter((v) => new RegExp(`\\$\\{?${v}\\b`).test(script));
    if (used.length === 0) continue;
    const lines = used.map((v) => `export ${v}="${FALLBACKS[v]}"`);
    draft.job[part] = `${lines.join('\n')}\n${script}`;
    out.warned(
      at[part],
      `uses ${used.join(', ')}: Tender sets the rank and address aliases on distributed runs only, so the script starts with fallbacks`,
      `${lines.length} export line(s) at the top of ${part}`,
    );
  }
}

// The batch script of a Tender allocation (docs/slurm.md): it holds the allocation for the
// node's agent. Tender's bootstrap runs through `srun --overlap` like on any node and, at
// its end, `agent start --holder` writes the daemon's command to D/holder.cmd; this script
// execs it, so the daemon is the allocation's own process and lives as long as it does
// (a process started by a step would end with the step). When the daemon exits the
// allocation ends. D is the node folder every node has (nodes/node-layout.ts).

/** How long the script waits for the bootstrap to hand it the agent. */
export const HOLD_WAIT_S = 600;

const LABEL = /^[A-Za-z0-9._-]+$/;

export function batchScript(label: string): string {
  if (!LABEL.test(label)) throw new Error(`not a lease label: ${JSON.stringify(label)}`);
  const tries = HOLD_WAIT_S * 10;
  return [
    '#!/bin/bash',
    `# Tender ${label}: holds this allocation for Tender's agent (docs/slurm.md).`,
    `D="$HOME/.tender/nodes/${label}"`,
    'mkdir -p "$D"',
    `for _ in $(seq 1 ${tries}); do`,
    '  if [ -f "$D/holder.cmd" ]; then exec bash "$D/holder.cmd"; fi',
    '  sleep 0.1',
    'done',
    `echo "tender: no agent was started in this allocation within ${HOLD_WAIT_S / 60} minutes" >&2`,
    'exit 1',
    '',
  ].join('\n');
}

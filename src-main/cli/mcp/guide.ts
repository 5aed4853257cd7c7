// How an agent uses Tender well: the server's instructions and the `tender_howto` prompt.
// Kept in step with AGENTS.md and docs/agents.md.
import { DEFAULT_MAX_DURATION } from './run-request';

export const GUIDE = `Tender rents GPU nodes (or uses this machine, or your own ssh hosts), pushes the job's folder, runs it, streams its log, brings its outputs back and destroys the nodes. It keeps a ledger of everything that bills.

The loop:
1. tender_offers (marketplaces only) — what a GPU costs now. Pick a max_price from it.
2. tender_run — job_file (a tender.toml path) or job (tender.toml text), and provider, count, gpu, gpus, max_price, max_duration. It returns a run id at once; nothing blocks.
3. tender_status — poll every 10–60 s, not faster: pending → running → completed | failed | cancelled.
4. tender_logs — the last lines (tail), then only what is new: pass the next_seq it returned as from_seq.
5. tender_metrics — a job that appends JSON lines such as {"step": 10, "loss": 0.31} to $TENDER_METRICS gets series here.
6. When done: a run destroys its nodes itself when its job ends. To stop early, tender_cancel (collects outputs) or tender_down (destroys at once).

Guard rails (set by the person running tender mcp; you cannot change them):
- The session has a budget. A run commits nodes × $/h cap × max_duration up front; a run that would go over is refused before anything is rented, with the figures. Cancel or tear down runs you no longer need to free what they commit.
- Every run has a max_duration (default ${DEFAULT_MAX_DURATION}) and a budget its nodes enforce by themselves, even if this server stops.
- You may cancel or tear down only the runs this session started.
- --max-nodes caps the nodes live at once; --providers the providers you may name.

Good habits:
- Try the job on provider "local" first (free, seconds), then rent.
- Give the shortest max_duration that fits the job; set max_price from tender_offers.
- Never put a secret in job text: a tender.toml takes env = { NAME = { from_env = "NAME" } }, read from tender mcp's environment, and Tender redacts it from logs.
- Outputs land in the run's outputs_dir (tender_status) on this machine.`;

// The host-setup FIFO (docs/host-setup.md): commands that prepare the machine, seeded from
// the host declaration at daemon start and appendable at any time, drained one at a time,
// each in its own process group with its own log section and exit code. Durable in
// `D/host-setup/`: a restarted daemon neither loses a pending entry nor re-runs one that
// was started. The job's phases wait until it is drained (`start` refuses before). An entry
// that names secrets waits until `host_setup.secrets` gave their values (held in memory
// only), runs with them as environment variables, and its output is redacted of them.
import type { HostSetupAppend, HostSetupEntry, HostSetupStatus } from '../../wire/protocol';
import {
  type DeclaredOptions,
  type NewEntry,
  appendedEntry,
  byId,
  entriesToSeed,
  entryTitle,
  exitText,
  isDrained,
  missingSecrets,
  nextId,
  nextToRun,
  positionOf,
} from './host-setup-queue';
import { readEntries, writeEntry } from './host-setup-store';
import { createRedactor } from '../logs/redact';
import type { LogStore } from '../logs/log-store';
import { type PhaseExit, spawnPhase } from '../phases/phase-process';
import { forgetGroup, isGroupAlive, recordGroup, signalGroup } from '../phases/process-group';

/** How often an entry left running by an earlier daemon is checked for having ended. */
const ORPHAN_POLL_MS = 1000;

export interface HostSetupDeps {
  dir: string;
  pidsDir: string;
  log: LogStore;
  now: () => number;
  /** Where entries run, and with what environment (the daemon's, plus TENDER_CACHE). */
  cwd: string;
  env: () => Record<string, string>;
  /** The job's secret values (redacted from host setup's output too). */
  jobSecrets: () => Iterable<string>;
  /** Re-probes the node's capabilities; resolves with a line saying what it found. */
  refreshCapabilities: () => Promise<string>;
  /** False once the daemon is stopping or tearing the node down: start nothing more. */
  mayStart: () => boolean;
  /** An entry started or ended (the node is busy, not idle). */
  onChange: () => void;
}

export class HostSetup {
  private entries: HostSetupEntry[];
  private running: { id: number; pgid: number; exited: Promise<void> } | undefined;
  private isDraining = false;
  private killTimer: NodeJS.Timeout | undefined;
  /** Secret values by name, for the entries that name them: memory only. */
  private readonly secrets = new Map<string, string>();
  /** Entries whose wait for secrets was logged (once each). */
  private readonly waitNoted = new Set<number>();

  constructor(private readonly deps: HostSetupDeps) {
    this.entries = readEntries(deps.dir);
  }

  /** Takes over the entries an earlier daemon recorded as running: their output went with
   *  that daemon; once their group is gone they are exited with an unknown code. */
  recover(): void {
    for (const e of this.entries.filter((x) => x.state === 'running')) {
      const poll = setInterval(() => {
        if (e.pid !== null && isGroupAlive(e.pid)) return;
        clearInterval(poll);
        if (e.pid !== null) forgetGroup(this.deps.pidsDir, e.pid);
        this.deps.log.append(
          'agent',
          'info',
          `${entryTitle(e)} ended while no agent was watching; its exit code is unknown`,
        );
        this.update(e, { state: 'exited', code: null, signal: null, exitedAt: this.deps.now() });
        this.drain();
      }, ORPHAN_POLL_MS);
    }
  }

  /** Adds the declared entries not yet recorded (see entriesToSeed), then drains. */
  seed(declared: readonly string[], options: readonly DeclaredOptions[]): void {
    for (const entry of entriesToSeed(this.entries, declared, options)) this.add(entry);
    this.drain();
  }

  append(req: HostSetupAppend): { id: number; position: number } {
    const entry = this.add(appendedEntry(req));
    this.deps.log.append('agent', 'info', `appended ${entryTitle(entry)}`);
    this.drain();
    return { id: entry.id, position: positionOf(this.entries, entry.id) };
  }

  /** Values for the secrets entries name; the queue goes on once the next entry has all of
   *  its own. Returns how many unfinished entries still miss one. */
  provideSecrets(env: Record<string, string>): { waiting: number } {
    for (const [name, value] of Object.entries(env)) this.secrets.set(name, value);
    this.drain();
    const waiting = this.entries.filter(
      (e) => e.state === 'pending' && missingSecrets(e, this.secrets).length > 0,
    );
    return { waiting: waiting.length };
  }

  status(): HostSetupStatus {
    return { entries: byId(this.entries).map((e) => ({ ...e })), drained: this.isDrained() };
  }

  isDrained(): boolean {
    return isDrained(this.entries);
  }

  /** For `start`'s refusal: what is still to run, e.g. "host_setup[2] pip install x and 1
   *  more". Undefined when drained. */
  busyText(): string | undefined {
    const open = byId(this.entries).filter((e) => e.state !== 'exited');
    if (open.length === 0) return undefined;
    const more = open.length > 1 ? ` and ${open.length - 1} more` : '';
    return `${entryTitle(open[0]!)} (${open[0]!.state})${more}`;
  }

  /** SIGTERM to the running entry's group, SIGKILL after `graceMs`; resolves once it has
   *  exited. Pending entries stay pending (the next daemon runs them). */
  async cancel(graceMs: number): Promise<void> {
    const r = this.running;
    if (!r) return;
    signalGroup(r.pgid, 'SIGTERM');
    clearTimeout(this.killTimer);
    this.killTimer = setTimeout(
      () => isGroupAlive(r.pgid) && signalGroup(r.pgid, 'SIGKILL'),
      graceMs,
    );
    await r.exited;
  }

  private add(entry: NewEntry): HostSetupEntry {
    const full: HostSetupEntry = {
      ...entry,
      id: nextId(this.entries),
      state: 'pending',
      pid: null,
      code: null,
      signal: null,
      addedAt: this.deps.now(),
      startedAt: null,
      exitedAt: null,
      firstSeq: null,
      lastSeq: null,
    };
    writeEntry(this.deps.dir, full);
    this.entries.push(full);
    return full;
  }

  /** Runs the pending entries one after another until none is left. */
  private drain(): void {
    if (this.isDraining) return;
    this.isDraining = true;
    void this.drainLoop().finally(() => (this.isDraining = false));
  }

  private async drainLoop(): Promise<void> {
    for (;;) {
      if (!this.deps.mayStart()) return;
      const next = nextToRun(this.entries);
      if (!next) return;
      const missing = missingSecrets(next, this.secrets);
      if (missing.length > 0) return this.noteWaiting(next, missing); // FIFO: the rest wait too
      await this.runOne(next);
    }
  }

  private noteWaiting(e: HostSetupEntry, missing: string[]): void {
    if (this.waitNoted.has(e.id)) return;
    this.waitNoted.add(e.id);
    this.deps.log.append(
      'agent',
      'info',
      `${entryTitle(e)} waits for its secrets (${missing.join(', ')}): Tender sends them with the job (host_setup.secrets)`,
    );
  }

  private async runOne(e: HostSetupEntry): Promise<void> {
    const { log } = this.deps;
    const env = { ...this.deps.env() };
    for (const name of e.secrets ?? []) env[name] = this.secrets.get(name)!;
    const redact = createRedactor([...this.secrets.values(), ...this.deps.jobSecrets()]);
    const firstSeq = log.append('host_setup', 'info', entryTitle(e));
    let markExited!: () => void;
    const exited = new Promise<void>((resolve) => (markExited = resolve));
    const ended = new Promise<PhaseExit>((resolve) => {
      spawnPhase(
        'host_setup',
        { command: e.script, env, cwd: this.deps.cwd, redact },
        log,
        resolve,
      ).then(
        (pid) => {
          recordGroup(this.deps.pidsDir, pid);
          this.running = { id: e.id, pgid: pid, exited };
          this.update(e, { state: 'running', pid, startedAt: this.deps.now(), firstSeq });
          this.deps.onChange();
        },
        (err: Error) => {
          log.append('host_setup', 'stderr', err.message);
          resolve({ code: 127, signal: null }); // what a shell says of a command it cannot run
        },
      );
    });
    const exit = await ended;
    clearTimeout(this.killTimer);
    const done = { ...e, ...exit };
    const lastSeq = log.append('host_setup', 'info', `${entryTitle(e)} ${exitText(done)}`);
    if (e.refreshCapabilities) {
      const found = await this.deps
        .refreshCapabilities()
        .catch((err: Error) => `capabilities not re-probed: ${err.message}`);
      log.append('agent', 'info', `after ${entryTitle(e)}: ${found}`);
    }
    await log.flush(); // its section is in the log before its state says exited
    if (this.running) forgetGroup(this.deps.pidsDir, this.running.pgid);
    this.running = undefined;
    this.update(e, { state: 'exited', ...exit, exitedAt: this.deps.now(), firstSeq, lastSeq });
    this.deps.onChange();
    markExited();
  }

  private update(e: HostSetupEntry, patch: Partial<HostSetupEntry>): void {
    Object.assign(e, patch);
    writeEntry(this.deps.dir, e);
  }
}

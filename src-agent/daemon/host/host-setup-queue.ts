// The host-setup FIFO's rules, pure: which declared entries still need adding, which entry
// runs next, where an entry stands in line. host-setup.ts performs them.
import type { HostSetupOption } from '../../wire/host-declaration';
import type { HostSetupAppend, HostSetupEntry } from '../../wire/protocol';

/** What the app says about the declared entries beyond their scripts (`--host-setup`):
 *  the declaration carries scripts only, since the key hashes those. */
export type DeclaredOptions = HostSetupOption;

/** A new entry before it has an id and a time. */
export type NewEntry = Pick<
  HostSetupEntry,
  'script' | 'name' | 'refreshCapabilities' | 'origin' | 'declIndex' | 'secrets'
>;

/** The declared scripts not yet recorded, in declaration order. A declared entry is
 *  recorded when an entry of origin `declared` has its index and its script: a restarted
 *  daemon seeds nothing twice, whatever state the entries are in. Options apply to the
 *  entry at their index only while they name the same script. */
export function entriesToSeed(
  recorded: readonly HostSetupEntry[],
  declared: readonly string[],
  options: readonly DeclaredOptions[] = [],
): NewEntry[] {
  const out: NewEntry[] = [];
  declared.forEach((script, declIndex) => {
    const isRecorded = recorded.some(
      (e) => e.origin === 'declared' && e.declIndex === declIndex && e.script === script,
    );
    if (isRecorded) return;
    const opt = options[declIndex]?.script === script ? options[declIndex] : undefined;
    out.push({
      script,
      ...(opt?.name ? { name: opt.name } : {}),
      refreshCapabilities: opt?.refreshCapabilities === true,
      ...(opt?.secrets?.length ? { secrets: [...opt.secrets] } : {}),
      origin: 'declared',
      declIndex,
    });
  });
  return out;
}

export function appendedEntry(req: HostSetupAppend): NewEntry {
  return {
    script: req.script,
    ...(req.name ? { name: req.name } : {}),
    refreshCapabilities: req.refreshCapabilities === true,
    origin: 'appended',
  };
}

/** Ids continue after the highest recorded one. */
export function nextId(entries: readonly HostSetupEntry[]): number {
  return entries.reduce((max, e) => Math.max(max, e.id), 0) + 1;
}

/** The entry to start now: the oldest pending one, and only while none runs. */
export function nextToRun(entries: readonly HostSetupEntry[]): HostSetupEntry | undefined {
  if (entries.some((e) => e.state === 'running')) return undefined;
  return byId(entries).find((e) => e.state === 'pending');
}

/** The secrets `e` names that are not held yet (it waits for them). */
export function missingSecrets(
  e: Pick<HostSetupEntry, 'secrets'>,
  held: ReadonlyMap<string, string>,
): string[] {
  return (e.secrets ?? []).filter((name) => !held.has(name));
}

/** How many unfinished entries are ahead of `id` (0: it runs now or next). */
export function positionOf(entries: readonly HostSetupEntry[], id: number): number {
  return entries.filter((e) => e.id < id && e.state !== 'exited').length;
}

export function isDrained(entries: readonly HostSetupEntry[]): boolean {
  return entries.every((e) => e.state === 'exited');
}

export function byId(entries: readonly HostSetupEntry[]): HostSetupEntry[] {
  return [...entries].sort((a, b) => a.id - b.id);
}

/** `host_setup[2] apt-get install -y ffmpeg` (the name, when given, in front of the script). */
export function entryTitle(e: Pick<HostSetupEntry, 'id' | 'script' | 'name'>): string {
  const firstLine = e.script.split('\n')[0] ?? '';
  const more = e.script.includes('\n') ? ' …' : '';
  return `host_setup[${e.id}] ${e.name ? `(${e.name}) ` : ''}${firstLine}${more}`;
}

/** `exited with code 100`, `was killed by SIGTERM`, or an unknown end. */
export function exitText(e: Pick<HostSetupEntry, 'code' | 'signal'>): string {
  if (e.signal) return `was killed by ${e.signal}`;
  return e.code === null ? 'ended; its exit code is unknown' : `exited with code ${e.code}`;
}

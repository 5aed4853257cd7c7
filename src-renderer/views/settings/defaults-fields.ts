import type { SettingsView } from '../../../src-main/contract';

export type Defaults = SettingsView['defaults'];
export type DefaultKey = keyof Defaults;

export interface DefaultField {
  key: DefaultKey;
  label: string;
  /** A number with a unit, or one of some choices. */
  unit?: string;
  choices?: { value: string; label: string }[];
  range?: string;
  hint: string;
  group: 'boot' | 'policy';
}

/** What Settings offers, in the order shown; bounds come from the contract's schema. */
export const DEFAULT_FIELDS: DefaultField[] = [
  {
    key: 'connectDeadlineMin',
    group: 'boot',
    label: 'SSH connect deadline',
    unit: 'min',
    range: '1–60',
    hint: 'How long a new node may take to accept SSH before Tender gives up on it.',
  },
  {
    key: 'endpointDeadlineMin',
    group: 'boot',
    label: 'Provisioning deadline',
    unit: 'min',
    range: '1–120',
    hint: 'How long a rented machine may stay provisioning before it counts as a failed boot.',
  },
  {
    key: 'maxBootAttempts',
    group: 'boot',
    label: 'Boot attempts per node',
    unit: 'leases',
    range: '1–10',
    hint: 'Machines one node may go through when boots fail; each failed one is destroyed first.',
  },
  {
    key: 'cancelGraceSec',
    group: 'boot',
    label: 'Cancel grace',
    unit: 's',
    range: '0–600',
    hint: 'Between SIGTERM and SIGKILL when you cancel a job, for it to save its state.',
  },
  {
    key: 'diskGb',
    group: 'boot',
    label: 'Disk for rented nodes',
    unit: 'GB',
    range: '8–8192',
    hint: 'Asked of every rented machine, and priced into every offer.',
  },
  {
    key: 'maxDurationH',
    group: 'policy',
    label: 'Longest lease',
    unit: 'h',
    range: '0–720, 0: no limit',
    hint: 'A lease is destroyed this long after it was created, whatever runs on it.',
  },
  {
    key: 'idleTimeoutMin',
    group: 'policy',
    label: 'Idle timeout',
    unit: 'min',
    range: '0–10080, 0: never',
    hint: 'With no job running and nobody on it for this long, a node is destroyed.',
  },
  {
    key: 'unreachableGraceMin',
    group: 'policy',
    label: 'Unreachable grace',
    unit: 'min',
    range: '1–10080',
    hint: 'A node with no job running that cannot reach Tender (laptop closed, crash, network) destroys itself after this. A running job is never stopped for it.',
  },
  {
    key: 'collectGraceMin',
    group: 'policy',
    label: 'Collect grace',
    unit: 'min',
    range: '1–10080',
    hint: 'After a job ended with nobody attached, its outputs wait this long for Tender (on your own machines they stay there after).',
  },
  {
    key: 'afterJob',
    group: 'policy',
    label: 'When the job ends',
    choices: [
      { value: 'destroy', label: 'Destroy the nodes' },
      { value: 'keep_warm', label: 'Keep them warm until idle' },
    ],
    hint: 'After the outputs are collected.',
  },
];

export type DefaultsForm = Partial<Record<DefaultKey, string>>;

/** The fields the running Tender reports (an older one lacks the policy defaults). */
export function fieldsOf(saved: Defaults): DefaultField[] {
  return DEFAULT_FIELDS.filter((f) => (saved as Partial<Defaults>)[f.key] !== undefined);
}

export function asForm(saved: Defaults): DefaultsForm {
  return Object.fromEntries(fieldsOf(saved).map((f) => [f.key, String(saved[f.key])]));
}

/** The changed fields as a setDefaults patch (numbers parsed), or an error per field that
 *  is not a number. */
export function patchOf(
  form: DefaultsForm,
  saved: Defaults,
): { patch: Record<string, number | string>; notNumbers: DefaultKey[] } {
  const patch: Record<string, number | string> = {};
  const notNumbers: DefaultKey[] = [];
  for (const f of fieldsOf(saved)) {
    const text = (form[f.key] ?? '').trim();
    if (text === String(saved[f.key])) continue;
    if (f.choices) {
      patch[f.key] = text;
      continue;
    }
    const v = Number(text);
    if (text === '' || !Number.isFinite(v)) notNumbers.push(f.key);
    else patch[f.key] = v;
  }
  return { patch, notNumbers };
}

import {
  ClusterInput,
  LIVE_LEASE_STATES,
  type ClusterView,
  type LeaseView,
} from '../../../src-main/contract';
import { ApiError } from '../../api/backend';
import { errorByField, issuesByField, type FieldErrors } from './field-errors';

/** The add form's fields: the login node in one (`user@login-host[:port]`, as `tender
 *  clusters add` takes it), the rest as the contract names them. */
export type ClusterField =
  'name' | 'login' | 'identityFile' | 'partition' | 'account' | 'qos' | 'gpuHourUsd';
export const CLUSTER_FIELDS: readonly ClusterField[] = [
  'name',
  'login',
  'identityFile',
  'partition',
  'account',
  'qos',
  'gpuHourUsd',
];
export type ClusterForm = Record<ClusterField, string>;
export const EMPTY_CLUSTER_FORM: ClusterForm = {
  name: '',
  login: '',
  identityFile: '',
  partition: '',
  account: '',
  qos: '',
  gpuHourUsd: '',
};

/** The contract's fields the Login field stands for. */
const LOGIN_PARTS = ['host', 'port', 'user'] as const;

export type FormResult =
  | { ok: true; input: ClusterInput }
  | { ok: false; fields: FieldErrors<ClusterField>; general: string | null };

/** `user@login-host[:port]` (an IPv6 address in brackets) as the user, host and port; the
 *  port is 22 when none is given. */
export function parseLogin(
  text: string,
): { user: string; host: string; port: number } | { problem: string } {
  const t = text.trim();
  if (t === '') return { problem: 'required: user@login-host, or user@login-host:port' };
  const m = /^([^@\s]+)@([^:\s@[\]]+|\[[^\]\s]+\])(?::(\d+))?$/.exec(t);
  if (!m) return { problem: 'user@login-host, or user@login-host:port' };
  const port = m[3] === undefined ? 22 : Number(m[3]);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return { problem: 'the port is a number from 1 to 65535' };
  return { user: m[1]!, host: m[2]!.replace(/^\[|\]$/g, ''), port };
}

/** The typed notional price: empty is none; `$0.50` reads as 0.5; NaN when it is no
 *  number. */
export function parsePrice(text: string): number | undefined {
  const t = text.trim().replace(/^\$\s*/, '');
  if (t === '') return undefined;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : NaN;
}

/** The form as `clusters.add` input, checked by the contract's own schema first; or what
 *  is wrong, by field (every problem at once). */
export function clusterFormToInput(form: ClusterForm): FormResult {
  const fields: FieldErrors<ClusterField> = {};
  const login = parseLogin(form.login);
  if ('problem' in login) fields.login = login.problem;
  const price = parsePrice(form.gpuHourUsd);
  if (Number.isNaN(price)) fields.gpuHourUsd = 'dollars per GPU-hour, e.g. 0.50 (empty: none)';
  const text = (f: ClusterField) => form[f].trim();
  const candidate: ClusterInput = {
    name: text('name'),
    ...('problem' in login ? { host: '', user: '' } : login),
    ...(text('identityFile') ? { identityFile: text('identityFile') } : {}),
    ...(text('partition') ? { partition: text('partition') } : {}),
    ...(text('account') ? { account: text('account') } : {}),
    ...(text('qos') ? { qos: text('qos') } : {}),
    ...(price !== undefined && !Number.isNaN(price) ? { gpuHourUsd: price } : {}),
  };
  const parsed = ClusterInput.safeParse(candidate);
  let general: string | null = null;
  if (!parsed.success) {
    const r = issuesByField(
      parsed.error.issues.map((i) => ({ ...i, path: [fieldOf(i.path[0])] })),
      CLUSTER_FIELDS,
    );
    for (const f of CLUSTER_FIELDS) fields[f] ??= r.fields[f];
    general = r.general;
  }
  const hasErrors = Object.values(fields).some((v) => v !== undefined);
  if (hasErrors || general !== null) return { ok: false, fields: defined(fields), general };
  return { ok: true, input: candidate };
}

/** A zod path's first key as the form's field: host, port and user are the Login field. */
function fieldOf(key: PropertyKey | undefined): string {
  return (LOGIN_PARTS as readonly PropertyKey[]).includes(key ?? '') ? 'login' : String(key ?? '');
}

function defined(f: FieldErrors<ClusterField>): FieldErrors<ClusterField> {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));
}

/** What the core refused, by field: a name already taken belongs to the Name field; a
 *  bad_request naming host, port or user to Login; anything else under the form. */
export function clusterErrorByField(err: unknown): {
  fields: FieldErrors<ClusterField>;
  general: string | null;
} {
  if (err instanceof ApiError && err.code === 'bad_input' && /^a cluster named /.test(err.message))
    // Its hint speaks of the CLI; here the fix is beside the field.
    return {
      fields: { name: `${err.message}: pick another name, or remove it first` },
      general: null,
    };
  const r = errorByField(err, [...CLUSTER_FIELDS, ...LOGIN_PARTS], 'name');
  const fields: FieldErrors<ClusterField> = {};
  for (const [k, v] of Object.entries(r.fields)) {
    const f = fieldOf(k) as ClusterField;
    fields[f] ??= v;
  }
  return { fields, general: r.general };
}

/** `ada@login.lab.edu:22` (an IPv6 login node in brackets). */
export function loginText(c: Pick<ClusterView, 'user' | 'host' | 'port'>): string {
  const host = c.host.includes(':') ? `[${c.host}]` : c.host;
  return `${c.user}@${host}:${c.port}`;
}

/** The cluster's sbatch defaults as the list shows them; `(default)`: the cluster's own. */
export function slurmDefaults(
  c: Pick<ClusterView, 'partition' | 'account' | 'qos'>,
): { label: string; value: string; isDefault: boolean }[] {
  return (
    [
      ['partition', c.partition],
      ['account', c.account],
      ['QOS', c.qos],
    ] as const
  ).map(([label, v]) => ({ label, value: v ?? '(default)', isDefault: v === null }));
}

/** The runs holding a live allocation on the cluster (its lease ids are
 *  `slurm:<cluster>/<job id>`): removing it then would leave them without their login node. */
export function clusterInUse(
  name: string,
  leases: readonly Pick<LeaseView, 'provider' | 'leaseId' | 'state' | 'runId'>[],
): string[] {
  const runs = leases
    .filter(
      (l) =>
        l.provider === 'slurm' &&
        LIVE_LEASE_STATES.includes(l.state) &&
        l.leaseId?.startsWith(`slurm:${name}/`) === true,
    )
    .map((l) => l.runId ?? '?');
  return [...new Set(runs)];
}

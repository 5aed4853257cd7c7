import { parseDuration } from '../../contract/policy';
import { parseAccelerators } from './accelerators';
import type { JobDraft } from './draft';
import type { GpuOption } from './gpu-pick';
import { keyPath, type Outcomes } from './key-outcomes';
import { tenderProvider } from './providers-map';
import { boolOf, intOf, isDict, portsOf } from './values';
import { skypilotRecovery } from './skypilot-recovery';

/** Where the pool's provider and GPU come from, collected over `any_of`/`ordered`. */
export interface ResourcePlan {
  gpus: GpuOption[];
  gpuPath?: string;
  providers: string[];
}

const LEFT_OUT: Record<string, string> = {
  zone: 'Tender places by region only',
  instance_type: "a cloud's instance type; Tender rents by GPU, count and constraints",
  accelerator_args: 'TPU arguments; Tender rents no TPUs',
  disk_tier: 'Tender rents the disk the offer has',
  network_tier: 'Tender rents the network the offer has',
  labels: 'cloud labels; Tender labels its own leases',
  _docker_login_config: 'registry credentials: configure them on the image or in host_setup',
  priority: 'Tender has no queue priority',
};

/** `resources`: its keys, then each `any_of`/`ordered` entry over them (the first sets the
 *  pool; the others are alternatives, noted in order). */
export function skypilotResources(res: unknown, draft: JobDraft, out: Outcomes): ResourcePlan {
  const plan: ResourcePlan = { gpus: [], providers: [] };
  if (!isDict(res)) {
    out.refused(
      'resources',
      'resources is not a mapping',
      'write resources: with keys such as accelerators: A100:8',
    );
    return plan;
  }
  const alternatives = res.any_of ?? res.ordered;
  const altKey = res.any_of !== undefined ? 'any_of' : 'ordered';
  for (const [key, value] of Object.entries(res)) {
    if (key === 'any_of' || key === 'ordered') continue;
    resourceKey(key, value, keyPath('resources', key), true, draft, out, plan);
  }
  if (alternatives !== undefined) {
    const at = keyPath('resources', altKey);
    if (!Array.isArray(alternatives) || !alternatives.every(isDict) || alternatives.length === 0) {
      out.refused(
        at,
        `${altKey} is not a list of resource mappings`,
        `write ${altKey}: [{accelerators: A100:8}, {accelerators: H100:8}]`,
      );
    } else {
      alternatives.forEach((entry, i) => {
        for (const [key, value] of Object.entries(entry)) {
          resourceKey(key, value, `${at}[${i}].${key}`, i === 0, draft, out, plan);
        }
      });
      if (altKey === 'any_of' && alternatives.length > 1)
        out.warned(
          at,
          'SkyPilot takes the cheapest of any_of; Tender tries the entries in the order written',
          'the first entry sets the pool, the others are noted in order',
        );
      else out.mapped(at, 'the first entry sets the pool, the others are noted in order');
    }
  }
  if (res.any_of !== undefined && res.ordered !== undefined)
    out.refused('resources.ordered', 'any_of and ordered together', 'keep one of them');
  return plan;
}

function resourceKey(
  key: string,
  value: unknown,
  at: string,
  primary: boolean,
  draft: JobDraft,
  out: Outcomes,
  plan: ResourcePlan,
): void {
  const { pool } = draft;
  switch (key) {
    case 'accelerators': {
      const parsed = parseAccelerators(value);
      if ('error' in parsed) return out.refused(at, parsed.error, 'write accelerators: A100:8');
      plan.gpus.push(...parsed.options.map((o) => ({ ...o, from: at })));
      plan.gpuPath ??= at;
      if (!primary) out.mapped(at, 'an alternative GPU, noted under [pool]');
      return;
    }
    case 'cloud':
    case 'infra': {
      const [cloud = '', region] = String(value).split('/');
      const provider = tenderProvider(cloud);
      if (!provider)
        return out.warned(
          at,
          `Tender has no ${cloud} provider; the pool uses Tender's marketplaces`,
        );
      plan.providers.push(provider);
      if (primary && region && region !== '*') pool.region = region;
      return out.mapped(
        at,
        `pool.provider ${provider}${primary && region ? `, region = "${region}"` : ''}`,
      );
    }
    case 'region':
      if (!primary) return out.warned(at, 'only the first entry sets the region');
      pool.region = String(value);
      return out.mapped(at, `pool.region = "${String(value)}" (read by the provider that rents)`);
    case 'use_spot': {
      const spot = boolOf(value);
      if (spot === undefined)
        return out.refused(at, 'use_spot is true or false', 'write use_spot: true');
      if (!primary) return out.warned(at, 'only the first entry sets interruptible');
      if (spot) pool.interruptible = true;
      return out.mapped(at, spot ? 'pool.interruptible = true' : "on demand (Tender's default)");
    }
    case 'disk_size': {
      const gb = intOf(String(value).replace(/\s*GB$/i, ''));
      if (gb === undefined || gb < 1 || gb > 8192)
        return out.refused(
          at,
          `disk_size ${String(value)} is not a size in GB from 1 to 8192`,
          'write disk_size: 256',
        );
      if (primary) pool.disk_gb = gb;
      return out.mapped(at, `pool.disk_gb = ${gb}`);
    }
    case 'image_id': {
      const text = typeof value === 'string' ? value : '';
      if (!text.startsWith('docker:'))
        return out.warned(
          at,
          'a cloud machine image; Tender rents with container images (image_id: docker:IMAGE)',
        );
      pool.image = text.slice('docker:'.length);
      return out.mapped(at, `pool.image = "${pool.image}"`);
    }
    case 'ports': {
      const ports = portsOf(value);
      if (!ports)
        return out.refused(
          at,
          `${JSON.stringify(value)} is not a port, a list of ports or a short range`,
          'write ports: 8080 or ports: [8080, 8081]',
        );
      draft.job.ports.push(...ports.filter((p) => !draft.job.ports.includes(p)));
      return out.warned(
        at,
        'SkyPilot opens these to the internet; Tender forwards them to 127.0.0.1 here while the job runs (as tender forward does)',
        `job.ports = [${ports.join(', ')}]`,
      );
    }
    case 'cpus': {
      const n = /^(\d+)(\+?)$/.exec(String(value).trim());
      const part = /^(\d*\.\d+)(\+?)$/.exec(String(value).trim());
      // A fraction of a CPU (`0.5`, a container's share) is a size Tender does not rent by.
      if (!n && part)
        return out.warned(
          at,
          `cpus ${String(value)} has no Tender equivalent: nodes are rented whole and no cores are reserved per job; left out (a whole count, cpus: 8+, becomes a constraint)`,
        );
      if (!n) return out.refused(at, `cpus ${String(value)} is not N or N+`, 'write cpus: 8+');
      draft.job.constraints.push(`cpu.cores >= ${n[1]}`);
      return n[2]
        ? out.mapped(at, `constraint cpu.cores >= ${n[1]}`)
        : out.warned(at, 'exactly N becomes at least N', `constraint cpu.cores >= ${n[1]}`);
    }
    case 'memory': {
      const m = /^(\d+(?:\.\d+)?)\s*(?:GB?|GiB)?\s*(\+?)$/i.exec(String(value).trim());
      if (!m)
        return out.refused(at, `memory ${String(value)} is not N or N+ (GB)`, 'write memory: 32+');
      draft.job.constraints.push(`mem.total >= ${m[1]}GB`);
      return out.warned(
        at,
        `checked on each node as ${m[1]}·10⁹ bytes (a node reports a little under its nominal GiB)${m[2] ? '' : '; exactly N becomes at least N'}`,
        `constraint mem.total >= ${m[1]}GB`,
      );
    }
    case 'max_hourly_cost': {
      const usd = Number(value);
      if (!(usd > 0))
        return out.refused(at, 'max_hourly_cost is a price in $/h', 'write max_hourly_cost: 2.5');
      pool.max_price = usd;
      return out.mapped(at, `pool.max_price = ${usd} ($/h per node)`);
    }
    case 'autostop':
      return autostop(value, at, draft, out);
    case 'job_recovery':
    case 'spot_recovery':
      return skypilotRecovery(value, at, draft, out);
    default: {
      const why = LEFT_OUT[key];
      if (why) return out.warned(at, why);
      return out.warned(at, 'not a resources key Tender knows; left out');
    }
  }
}

/** `autostop: true | 10 | "10m" | {idle_minutes, down, wait_for, hook}`. */
function autostop(value: unknown, at: string, draft: JobDraft, out: Outcomes): void {
  const after =
    'Tender destroys the nodes when the job ends unless after_job = "keep_warm"; idle_timeout bounds a kept node';
  const set = (t: string, path = at) => {
    draft.policy.idle_timeout = t;
    out.warned(path, after, `policy.idle_timeout = "${t}"`);
  };
  const flag = boolOf(value);
  if (flag === true) return set('5m');
  if (flag === false) return out.mapped(at, 'nothing: the nodes are destroyed when the job ends');
  if (typeof value === 'number') return set(`${value}m`);
  if (typeof value === 'string' && parseDuration(value) !== undefined) return set(value);
  if (isDict(value)) {
    for (const [k, v] of Object.entries(value)) {
      const p = `${at}.${k}`;
      if (k === 'idle_minutes' && intOf(v) !== undefined) set(`${intOf(v)}m`, p);
      else if (k === 'down') out.mapped(p, 'Tender destroys (never stops) its nodes');
      else if (k === 'wait_for')
        out.warned(p, 'Tender counts a node idle when no job runs and nobody uses it');
      else if (k === 'hook' || k === 'hook_timeout')
        out.warned(p, 'not run: put it at the end of run, or collect its files as outputs');
      else out.warned(p, 'not an autostop key Tender knows; left out');
    }
    return;
  }
  out.refused(
    at,
    `autostop ${JSON.stringify(value)} is not true, minutes or a duration`,
    'write autostop: 10m',
  );
}

import path from 'node:path';
import { nameFromFile, workdirText, type ImportContext } from './context';
import { emptyDraft, type JobDraft } from './draft';
import { dstackResources } from './dstack-resources';
import { applyEnv, envText, type EnvEntry } from './env-input';
import { keyPath, Outcomes } from './key-outcomes';
import { expandHome, linkLocalPath, type PathContext } from './mounts';
import { poolProvider, tenderProvider } from './providers-map';
import type { Imported } from './skypilot';
import { intOf, isDict, isPort } from './values';
import { dstackDuration } from './dstack-duration';
import { dstackRetry } from './dstack-retry';
import { dstackUtilization } from './dstack-utilization';
import { addToolVariables } from './tool-variables';

const OTHER_TYPES: Record<string, string> = {
  service: 'a dstack service keeps replicas behind a gateway; Tender runs a job to its end',
  'dev-environment': 'a dstack dev environment waits for an IDE; Tender runs commands to their end',
  fleet: 'a dstack fleet is standing capacity; Tender rents nodes per run',
  gateway: 'a dstack gateway is an endpoint, not a job',
  volume: 'a dstack volume is storage, not a job',
};

const REFUSED: Record<string, [why: string, fix: string]> = {
  volumes: [
    'a volume is data Tender cannot attach',
    'remove volumes: and fetch the data in commands',
  ],
};

const LEFT_OUT: Record<string, string> = {
  python:
    "dstack's default image has this Python; Tender uses the image's (or the machine's) Python — add a constraint python.version >= X to check it",
  nvcc: "dstack's default image option; install CUDA in setup if the job needs nvcc",
  privileged: 'Tender does not run containers of its own',
  shell: 'Tender runs commands with sh',
  registry_auth: 'registry credentials: log in within host_setup',
  docker: 'Docker-in-Docker: install Docker in host_setup',
  availability_zones: 'Tender places by region only',
  instance_types: "a cloud's instance type; Tender rents by GPU, count and constraints",
  reservation: 'Tender rents from the open market',
  creation_policy: 'Tender rents a new node or claims a matching warm one',
  termination_policy:
    'Tender destroys nodes when the job ends (after_job = "keep_warm" keeps them)',
  stop_duration: 'Tender stops a job with SIGTERM, a grace period, then SIGKILL',
  schedule: 'Tender runs now; schedule it with cron or a CI job',
  fleets: 'Tender has no fleets',
  tags: 'Tender labels its own leases',
  priority: 'Tender has no queue priority',
  user: "Tender runs commands as the node's login user",
  single_branch: 'Tender pushes the workspace, not a git branch',
  startup_order: 'Tender starts every rank together, after a pre-flight check of the master port',
  home_dir: 'Tender runs in the workspace',
};

/** A dstack `type: task` configuration (docs "task" reference) as a Tender job draft. */
export function importDstack(doc: Record<string, unknown>, ctx: ImportContext): Imported {
  const out = new Outcomes();
  const name =
    typeof doc.name === 'string' && doc.name.trim() ? doc.name.trim() : nameFromFile(ctx.file);
  const draft = emptyDraft(name.slice(0, 200));
  const type = String(doc.type);
  if (type !== 'task') {
    out.refused(
      'type',
      OTHER_TYPES[type] ?? `dstack type "${type}" is not a task`,
      'Tender imports type: task only',
    );
    return { draft, outcomes: out, secretDefaults: {} };
  }
  const paths: PathContext = { base: ctx.yamlDir, home: ctx.home, workdir: ctx.outDir };
  if (doc.repos !== undefined) repos(doc.repos, ctx, paths, draft, out);
  const envEntries: EnvEntry[] = [];
  const links: string[] = [];
  let commands: string | undefined;
  let cd: string | undefined;
  const providers: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    const at = keyPath('', key);
    switch (key) {
      case 'type':
        out.mapped(at, 'a Tender job');
        break;
      case 'name':
        out.mapped(at, `job.name = "${draft.job.name}"`);
        break;
      case 'repos':
        break;
      case 'commands':
      case 'setup': {
        const lines = Array.isArray(value) ? value : [value];
        if (!lines.every((l) => typeof l === 'string')) {
          out.refused(
            at,
            `${key} is not a list of shell commands`,
            `write ${key}: with one "- command" per line`,
          );
          break;
        }
        if (lines.length === 0) break;
        // dstack stops at the first failing command.
        const script = `set -e\n${(lines as string[]).map((l) => l.replace(/\n$/, '')).join('\n')}\n`;
        if (key === 'commands') {
          commands = script;
          out.mapped(at, 'job.run (one script, stopping at the first failing command)');
        } else {
          draft.job.setup = script;
          out.warned(at, 'deprecated in dstack; runs before commands', 'job.setup');
        }
        break;
      }
      case 'working_dir':
        if (typeof value !== 'string' || value === '')
          out.refused(at, 'working_dir is not a path', 'write working_dir: subdir');
        else {
          cd = value;
          out.mapped(at, `run starts with cd ${value} (relative to the workspace)`);
        }
        break;
      case 'env':
        envList(value, at, envEntries, out);
        break;
      case 'nodes': {
        const n = intOf(value) ?? intOf(String(value).split('..')[0]);
        if (n === undefined || n < 1 || n > 64)
          out.refused(
            at,
            `nodes ${String(value)} is not a whole number from 1 to 64`,
            'write nodes: 2',
          );
        else {
          draft.pool.count = n;
          if (n > 1) draft.job.distributed = true;
          const to =
            n > 1
              ? `pool.count = ${n}, job.distributed = true (DSTACK_NODE_RANK, DSTACK_NODES_NUM, DSTACK_MASTER_NODE_IP are set)`
              : 'pool.count = 1';
          if (intOf(value) === undefined)
            out.warned(at, `a range: Tender rents exactly ${n} (its minimum)`, to);
          else out.mapped(at, to);
        }
        break;
      }
      case 'resources':
        dstackResources(value, draft, out);
        break;
      case 'image':
        if (typeof value !== 'string' || value === '')
          out.refused(at, 'image is not an image name', 'write image: repo/name:tag');
        else {
          draft.pool.image = value;
          out.mapped(at, `pool.image = "${value}"`);
        }
        break;
      case 'ports':
        ports(value, at, draft, out);
        break;
      case 'files': {
        const items = Array.isArray(value) ? value : [value];
        items.forEach((item, i) => {
          const p = `${at}[${i}]`;
          const [local, remote] = isDict(item)
            ? [String(item.local_path ?? ''), String(item.path ?? item.local_path ?? '')]
            : splitFile(String(item));
          if (!local)
            out.refused(p, 'a files entry names no local path', 'write - local/path:remote/path');
          else {
            const link = linkLocalPath(p, remote, local, paths, out);
            if (link) links.push(link);
          }
        });
        break;
      }
      case 'backends':
        for (const [i, b] of (Array.isArray(value) ? value : [value]).entries()) {
          const p = `${at}[${i}]`;
          const provider = tenderProvider(String(b));
          if (provider) {
            providers.push(provider);
            out.mapped(p, `pool.provider ${provider}`);
          } else
            out.warned(
              p,
              `Tender has no ${String(b)} provider; the pool uses Tender's marketplaces`,
            );
        }
        break;
      case 'regions': {
        const regions = (Array.isArray(value) ? value : [value]).map(String);
        draft.pool.region = regions[0];
        if (regions.length > 1)
          out.warned(
            at,
            `Tender takes one region; the first is used`,
            `pool.region = "${regions[0]}"`,
          );
        else out.mapped(at, `pool.region = "${regions[0]}"`);
        break;
      }
      case 'spot_policy':
        if (value === 'spot') {
          draft.pool.interruptible = true;
          out.mapped(at, 'pool.interruptible = true');
        } else if (value === 'on-demand') out.mapped(at, "on demand (Tender's default)");
        else if (value === 'auto')
          out.warned(
            at,
            'Tender does not fall back between spot and on demand: it rents on demand (set interruptible = true for spot)',
          );
        else
          out.refused(
            at,
            `spot_policy ${String(value)} is not spot, on-demand or auto`,
            'write spot_policy: spot',
          );
        break;
      case 'utilization_policy':
        dstackUtilization(value, at, draft, out);
        break;
      case 'retry':
        dstackRetry(value, at, draft, out);
        break;
      case 'max_duration':
      case 'idle_duration':
      case 'termination_idle_time': {
        const d = dstackDuration(value);
        const field = key === 'max_duration' ? 'max_duration' : 'idle_timeout';
        if (d === undefined)
          out.refused(at, `${String(value)} is not a duration`, `write ${key}: 6h (or off)`);
        else {
          draft.policy[field] = d;
          if (field === 'max_duration')
            out.mapped(at, `policy.max_duration = "${d}" (each lease, from its creation)`);
          else
            out.warned(
              at,
              'Tender destroys the nodes when the job ends unless after_job = "keep_warm"; idle_timeout bounds a kept node',
              `policy.idle_timeout = "${d}"`,
            );
        }
        break;
      }
      case 'max_price': {
        const usd = Number(value);
        if (!(usd > 0)) out.refused(at, 'max_price is a price in $/h', 'write max_price: 2.5');
        else {
          draft.pool.max_price = usd;
          out.mapped(at, `pool.max_price = ${usd} ($/h per node)`);
        }
        break;
      }
      case 'stop_criteria':
        if (value === 'master-done') {
          draft.job.stop = 'rank0';
          out.mapped(at, 'job.stop = "rank0"');
        } else if (value === 'all-done') {
          draft.job.stop = 'all';
          out.mapped(at, 'job.stop = "all"');
        } else
          out.refused(
            at,
            `stop_criteria ${String(value)} is not all-done or master-done`,
            'write stop_criteria: all-done',
          );
        break;
      default: {
        const refused = REFUSED[key];
        if (refused) out.refused(at, ...refused);
        else out.warned(at, LEFT_OUT[key] ?? 'not a dstack task key Tender knows; left out');
      }
    }
  }
  if (draft.job.stop && !draft.job.distributed) delete draft.job.stop;
  draft.pool.provider = poolProvider(providers, draft.pool.gpu_count !== undefined);
  if (draft.pool.provider === 'cheapest')
    out.mapped(
      'resources',
      'pool.provider = "cheapest" (no Tender marketplace named: every configured one, cheapest offer first, as dstack takes the cheapest offer)',
    );
  applyEnv(envEntries, ctx.env, draft, out);
  if (commands)
    draft.job.run = cd ? commands.replace(/^set -e\n/, `set -e\ncd ${shellWord(cd)}\n`) : commands;
  if (links.length > 0) draft.job.setup = `${links.join('\n')}\n${draft.job.setup ?? ''}`;
  addToolVariables(draft, { setup: 'setup', run: 'commands' }, out);
  if (!draft.job.run)
    out.refused(
      'commands',
      'nothing to run: the task has no commands',
      'add commands: with one "- command" per line',
    );
  return { draft, outcomes: out, secretDefaults: {} };
}

/** `- local:remote`, or `- path` (the same path on the node, relative to the working dir). */
function splitFile(text: string): [string, string] {
  const i = text.lastIndexOf(':');
  return i > 0 ? [text.slice(0, i), text.slice(i + 1)] : [text, text];
}

function envList(value: unknown, at: string, entries: EnvEntry[], out: Outcomes): void {
  const add = (name: string, v: unknown, p: string) => {
    const text = envText(v);
    if (text === undefined) out.refused(p, `${name} is not a text value`, `quote it: ${name}: "…"`);
    else entries.push({ name, value: text, path: p });
  };
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const text = String(item);
      const eq = text.indexOf('=');
      add(eq < 0 ? text : text.slice(0, eq), eq < 0 ? null : text.slice(eq + 1), `${at}[${i}]`);
    });
  } else if (isDict(value)) {
    for (const [k, v] of Object.entries(value)) add(k, v, keyPath(at, k));
  } else
    out.refused(
      at,
      'env is not a list of NAME=value or a mapping',
      'write env: with - NAME=value lines',
    );
}

/** dstack ports: `8080` or `"LOCAL:CONTAINER"` (`"8080:80"`); Tender's are `NODE:LOCAL`. */
function ports(value: unknown, at: string, draft: JobDraft, out: Outcomes): void {
  const items = Array.isArray(value) ? value : [value];
  items.forEach((item, i) => {
    const p = `${at}[${i}]`;
    const text = isDict(item)
      ? `${String(item.local_port ?? item.container_port)}:${String(item.container_port)}`
      : String(item);
    const m = /^(\d{1,5})(?::(\d{1,5}))?$/.exec(text);
    if (!m || !isPort(Number(m[1])) || (m[2] !== undefined && !isPort(Number(m[2])))) {
      out.refused(p, `${text} is not a port or LOCAL:CONTAINER`, 'write - 8080 or - "8080:80"');
      return;
    }
    const port =
      m[2] === undefined ? Number(m[1]) : m[1] === m[2] ? Number(m[1]) : `${m[2]}:${m[1]}`;
    draft.job.ports.push(port);
    out.mapped(
      p,
      `job.ports ${JSON.stringify(port)} (forwarded to 127.0.0.1 here while the job runs)`,
    );
  });
}

function repos(
  value: unknown,
  ctx: ImportContext,
  paths: PathContext,
  draft: JobDraft,
  out: Outcomes,
): void {
  const items = Array.isArray(value) ? value : [value];
  items.forEach((item, i) => {
    const p = `repos[${i}]`;
    const local = isDict(item)
      ? item.local_path
      : typeof item === 'string' && !/^[a-z]+:\/\/|^git@/.test(item)
        ? item.split(':')[0]
        : undefined;
    if (typeof local !== 'string' || i > 0) {
      out.refused(
        p,
        i > 0 ? 'Tender pushes one workspace' : 'a remote repo is a checkout Tender does not make',
        'clone it here and list its local path (repos: [.])',
      );
      return;
    }
    const abs = path.resolve(ctx.yamlDir, expandHome(local, ctx.home));
    paths.workdir = abs;
    const text = workdirText(abs, ctx.outDir);
    draft.job.workspace = { workdir: text };
    out.mapped(p, `job.workspace.workdir = "${text}"`);
  });
}

function shellWord(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

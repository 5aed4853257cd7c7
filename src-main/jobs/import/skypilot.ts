import path from 'node:path';
import { checkName } from '../job-file/job-file-env';
import { nameFromFile, workdirText, type ImportContext } from './context';
import { emptyDraft, type JobDraft } from './draft';
import { applyEnv, envText, secretOnCommandLine, type EnvEntry } from './env-input';
import { pickGpu } from './gpu-pick';
import { keyPath, Outcomes } from './key-outcomes';
import { bucketMount, expandHome, linkLocalPath, type PathContext } from './mounts';
import { poolProvider } from './providers-map';
import { skypilotResources } from './skypilot-resources';
import { intOf, isDict } from './values';
import { addToolVariables } from './tool-variables';

export interface Imported {
  draft: JobDraft;
  outcomes: Outcomes;
  /** Secret values written in the YAML: never put in the job file, but a direct run reads
   *  them when the variable is unset. */
  secretDefaults: Record<string, string>;
}

const REFUSED: Record<string, [why: string, fix: string]> = {
  service: [
    'a SkyPilot service (sky serve) keeps replicas behind an endpoint; Tender runs a job to its end',
    'remove service: to run the task once, with its ports forwarded',
  ],
  volumes: [
    'a persistent volume is data Tender cannot attach',
    'remove volumes: and fetch the data in setup',
  ],
  storage: [
    'a storage mount is a bucket Tender cannot mount',
    'remove it and download the data in setup',
  ],
  pool: [
    'a SkyPilot worker pool is not a Tender pool',
    'remove pool: and set the hardware under resources:',
  ],
};

const LEFT_OUT: Record<string, string> = {
  event_callback: "Tender reports a run's end by notification and webhook (Settings)",
  inputs: "an optimizer hint; Tender's pool is chosen by GPU and price",
  outputs: "an optimizer hint, not files: add Tender's [job] outputs to collect files",
};

/** A SkyPilot task (docs "YAML spec", sky/utils/schemas.py) as a Tender job draft. */
export function importSkypilot(doc: Record<string, unknown>, ctx: ImportContext): Imported {
  const out = new Outcomes();
  const name =
    typeof doc.name === 'string' && doc.name.trim() ? doc.name.trim() : nameFromFile(ctx.file);
  const draft = emptyDraft(name.slice(0, 200));
  const secretDefaults: Record<string, string> = {};
  const paths: PathContext = { base: ctx.cwd, home: ctx.home, workdir: ctx.outDir };
  const setupLinks: string[] = [];

  if (doc.workdir !== undefined) workdir(doc.workdir, ctx, paths, draft, out);
  const envEntries: EnvEntry[] = [];
  const secretNames = new Set<string>();
  for (const [key, value] of Object.entries(doc)) {
    const at = keyPath('', key);
    switch (key) {
      case 'name':
        out.mapped(at, `job.name = "${draft.job.name}"`);
        break;
      case 'workdir':
        break;
      case 'setup':
      case 'run':
        if (typeof value === 'string' && value.trim() !== '') {
          draft.job[key] = value;
          out.mapped(at, `job.${key}`);
        } else if (value !== null && value !== undefined && typeof value !== 'string')
          out.refused(
            at,
            `${key} is not a shell script`,
            `write ${key}: | followed by the commands`,
          );
        break;
      case 'num_nodes':
        numNodes(value, at, draft, out);
        break;
      case 'resources': {
        const plan = skypilotResources(value, draft, out);
        if (plan.gpus.length > 0) pickGpu(plan.gpus, plan.gpuPath!, draft, out);
        draft.pool.provider = poolProvider(plan.providers, plan.gpus.length > 0);
        if (draft.pool.provider === 'cheapest')
          out.mapped(
            at,
            'pool.provider = "cheapest" (no Tender marketplace named: every configured one, cheapest offer first, as SkyPilot picks the cheapest cloud)',
          );
        else out.mapped(at, '[pool] (each key below)');
        break;
      }
      case 'envs':
        if (!isDict(value))
          out.refused(at, 'envs is not a mapping', 'write envs: with NAME: value lines');
        else
          for (const [k, v] of Object.entries(value)) {
            const text = envText(v);
            if (text === undefined)
              out.refused(keyPath(at, k), `${k} is not a text value`, `quote it: ${k}: "…"`);
            else envEntries.push({ name: k, value: text, path: keyPath(at, k) });
          }
        break;
      case 'secrets':
        if (!isDict(value))
          out.refused(at, 'secrets is not a mapping', 'write secrets: with NAME: null lines');
        else
          for (const [k, v] of Object.entries(value)) {
            const p = keyPath(at, k);
            const bad = checkName(k);
            if (bad) {
              out.refused(p, bad.text, bad.hint ?? 'rename it');
              continue;
            }
            secretNames.add(k);
            if (ctx.env[k] !== undefined) {
              out.refused(p, ...secretOnCommandLine(k, 'is declared under secrets:'));
              continue;
            }
            draft.job.env[k] = { secret: true, from_env: k };
            const text = envText(v);
            if (typeof text === 'string' && text !== '') secretDefaults[k] = text;
            const yamlValue =
              typeof text === 'string' && text !== ''
                ? `; the YAML's value is not copied into the job file (\`tender run\` on the YAML uses it when $${k} is unset)`
                : '';
            const to = `job.env.${k} = { secret = true, from_env = "${k}" }`;
            if (yamlValue)
              out.warned(p, `a secret, read from $${k} when the run starts${yamlValue}`, to);
            else out.mapped(p, `${to}: read from $${k} when the run starts`);
          }
        break;
      case 'file_mounts':
        if (!isDict(value))
          out.refused(
            at,
            'file_mounts is not a mapping',
            'write file_mounts: with /remote/path: ./local/path lines',
          );
        else
          for (const [remote, local] of Object.entries(value)) {
            const p = keyPath(at, remote);
            // A storage mount (name/source/store/mode) with a local source is that folder.
            const source =
              typeof local === 'string'
                ? local
                : isDict(local) && typeof local.source === 'string'
                  ? local.source
                  : null;
            if (source === null) bucketMount(p, remote, null, out);
            else {
              const link = linkLocalPath(p, remote, source, paths, out);
              if (link) setupLinks.push(link);
            }
          }
        break;
      case 'config':
      case 'experimental':
        configKey(value, at, out);
        break;
      default: {
        const refused = REFUSED[key];
        if (refused) out.refused(at, ...refused);
        else out.warned(at, LEFT_OUT[key] ?? 'not a SkyPilot task key Tender knows; left out');
      }
    }
  }
  applyEnv(envEntries, ctx.env, draft, out, secretNames);
  if (setupLinks.length > 0)
    draft.job.setup =
      [...setupLinks, ...(draft.job.setup ? [draft.job.setup] : [])].join('\n') +
      (draft.job.setup ? '' : '\n');
  addToolVariables(draft, { setup: 'setup', run: 'run' }, out);
  if (!draft.job.run)
    out.refused(
      'run',
      'nothing to run: the task has no run commands',
      'add run: | followed by the commands to run',
    );
  return { draft, outcomes: out, secretDefaults };
}

function workdir(
  value: unknown,
  ctx: ImportContext,
  paths: PathContext,
  draft: JobDraft,
  out: Outcomes,
): void {
  if (typeof value !== 'string' || value.trim() === '') {
    out.refused(
      'workdir',
      'a git workdir (url/ref) is a checkout Tender does not make',
      'clone it here and set workdir: to the clone',
    );
    return;
  }
  const abs = path.resolve(ctx.cwd, expandHome(value, ctx.home));
  paths.workdir = abs;
  const text = workdirText(abs, ctx.outDir);
  draft.job.workspace = { workdir: text };
  out.mapped(
    'workdir',
    `job.workspace.workdir = "${text}" (resolved against the current folder, as sky does; pushed with .gitignore honoured)`,
  );
}

function numNodes(value: unknown, at: string, draft: JobDraft, out: Outcomes): void {
  const n = intOf(value);
  if (n === undefined || n < 1 || n > 64) {
    out.refused(
      at,
      `num_nodes ${String(value)} is not a whole number from 1 to 64`,
      'write num_nodes: 2',
    );
    return;
  }
  draft.pool.count = n;
  if (n === 1) return out.mapped(at, 'pool.count = 1');
  draft.job.distributed = true;
  out.mapped(
    at,
    `pool.count = ${n}, job.distributed = true (SKYPILOT_NODE_RANK, SKYPILOT_NODE_IPS, SKYPILOT_NUM_NODES are set)`,
  );
}

/** `config:` / `experimental.config_overrides:`: a Kubernetes pod spec changes the machine
 *  the task runs in; other overrides tune SkyPilot itself. */
function configKey(value: unknown, at: string, out: Outcomes): void {
  const inner = isDict(value) && isDict(value.config_overrides) ? value.config_overrides : value;
  const k8s = isDict(inner) && isDict(inner.kubernetes) ? inner.kubernetes : undefined;
  if (k8s && k8s.pod_config !== undefined)
    out.refused(
      `${at}${inner === value ? '' : '.config_overrides'}.kubernetes.pod_config`,
      'a Kubernetes pod spec: Tender has no Kubernetes provider',
      'remove it; set the GPU and image under resources:',
    );
  else out.warned(at, "SkyPilot's own settings; left out");
}

// Instances: create from an offer (PUT /asks/{id}/), list (v0 and v1), show, manage
// (state / label), destroy. Bodies and answers per vast-cli's openapi yaml files and the
// calls vast.py makes; see README.md for what is confirmed and what is a guess.
import type { RegistryLogin } from '../private-registry';
import { z } from 'zod';
import { takeCreateFailure, takeDestroyFailure } from './faults';
import { instanceView } from './instance';
import { listInstancesV1 } from './instance-list-v1';
import type { CreateRequest } from './market';
import { ApiFailure, invalidArgs, json, noSuchInstance, type Reply, serverError } from './reply';
import { type Ctx, path, type Route } from './route';

/** create_instance.yaml x-input-validation: disk min 8.0; the docs' default is 8. */
const MIN_DISK_GB = 8;
/** manage_instance.yaml: label maxLength 1024. */
const MAX_MANAGED_LABEL = 1024;
/** A create's `price` (bid): 0.001–128 $/h (create_instance.yaml). */
const CREATE_PRICE = { min: 0.001, max: 128 };
/** change bid's `price`: 0.001–32 $/h (the API reference's "change bid"). */
const BID_PRICE = { min: 0.001, max: 32 };

const EnvValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

const CreateBody = z.object({
  image: z.string().min(1).max(1024).nullish(),
  template_hash_id: z.string().nullish(),
  label: z.string().max(256).nullish(),
  disk: z.number().nullish(),
  runtype: z.string().nullish(),
  env: z.union([z.record(z.string(), EnvValue), z.string()]).nullish(),
  onstart: z.string().nullish(),
  args: z.array(z.string()).nullish(),
  target_state: z.enum(['running', 'stopped']).nullish(),
  price: z.number().nullish(),
  /** The arguments of `docker login`: "-u USER -p PASSWORD SERVER". */
  image_login: z.string().nullish(),
  /** docker create's `--user` (vast.py `--user`). */
  user: z.string().nullish(),
});

const BidBody = z.object({ client_id: z.string().optional(), price: z.number() });

const ManageBody = z.object({
  state: z.enum(['running', 'stopped']).optional(),
  label: z.string().nullable().optional(),
});

export const instanceRoutes: Route[] = [
  { method: 'PUT', path: path('/api/v0/asks/{id}/'), handle: createInstance },
  { method: 'GET', path: path('/api/v0/instances/'), handle: listV0 },
  { method: 'GET', path: path('/api/v1/instances/'), handle: listV1 },
  { method: 'GET', path: path('/api/v0/instances/{id}/'), instanceParam: 'id', handle: show },
  { method: 'PUT', path: path('/api/v0/instances/{id}/'), instanceParam: 'id', handle: manage },
  {
    method: 'PUT',
    path: path('/api/v0/instances/bid_price/{id}/'),
    instanceParam: 'id',
    handle: changeBid,
  },
  { method: 'DELETE', path: path('/api/v0/instances/{id}/'), instanceParam: 'id', handle: destroy },
];

async function createInstance({ market, params, body }: Ctx): Promise<Reply> {
  const askId = Number(params.id);
  const parsed = CreateBody.safeParse(body ?? {});
  if (!parsed.success)
    throw invalidArgs(`error 400/3467: Invalid args: ${z.prettifyError(parsed.error)}`, {
      ask_id: askId,
    });
  const b = parsed.data;
  if (!b.image)
    throw invalidArgs(
      b.template_hash_id
        ? `error 400/3467: Invalid args: template ${b.template_hash_id} not found (the fake has no templates; send image)`
        : "error 400/3467: Invalid args: 'image' is required",
      { ask_id: askId },
    );
  if (b.price != null && (b.price < CREATE_PRICE.min || b.price > CREATE_PRICE.max))
    throw new ApiFailure(
      json(400, {
        success: false,
        error: 'invalid_price',
        msg: `error 400/3467: Invalid price ${b.price}: from ${CREATE_PRICE.min} to ${CREATE_PRICE.max} $/hour`,
        ask_id: askId,
      }),
    );
  const entry = market.rentableOffer(askId);
  if (!entry)
    // create_instance.yaml, 404 "Offer not found or not available".
    throw new ApiFailure(
      json(404, {
        success: false,
        error: 'invalid_args',
        msg: `error 404/3603: no_such_ask Instance type by id ${askId} is not available.`,
        ask_id: askId,
      }),
    );
  const disk = b.disk ?? MIN_DISK_GB;
  if (disk < MIN_DISK_GB)
    throw invalidArgs(`error 400/3467: Invalid args: disk must be at least ${MIN_DISK_GB} GB`, {
      ask_id: askId,
    });
  if (disk > entry.spec.disk_space)
    throw invalidArgs(
      `error 400/3467: Invalid args: disk ${disk} GB exceeds the ${entry.spec.disk_space} GB this offer has`,
      { ask_id: askId },
    );
  const req: CreateRequest = {
    image: b.image,
    label: b.label ?? null,
    disk,
    runtype: b.runtype ?? 'ssh',
    onstart: b.onstart ?? null,
    args: b.args ?? [],
    env: typeof b.env === 'string' ? parseDockerOptions(b.env) : (b.env ?? {}),
    templateHashId: b.template_hash_id ?? null,
    price: b.price ?? null,
    user: b.user ?? null,
  };
  const inst = await market.create(entry, req);
  // A private image pulls only with its registry's login: refused, the instance shows
  // Docker's error while "loading" and never starts (private-registry.ts).
  const refused = market.registries.refusal(b.image, parseDockerLogin(b.image_login ?? null));
  if (refused !== null) inst.forced = { status: 'loading', msg: refused };
  if (b.target_state === 'stopped') await market.setIntended(inst, 'stopped');
  const failure = takeCreateFailure(market.faults);
  if (failure !== null) return serverError(failure); // the instance exists and bills
  return json(200, { success: true, new_contract: inst.id });
}

function listV0({ market }: Ctx): Reply {
  const now = market.clock.now();
  const rows = market.listed().map((i) => instanceView(i, now));
  return json(200, { instances_found: rows.length, instances: rows });
}

function listV1({ market, query }: Ctx): Reply {
  const now = market.clock.now();
  return json(
    200,
    listInstancesV1(
      market.listed().map((i) => instanceView(i, now)),
      query,
    ),
  );
}

function show({ market, params }: Ctx): Reply {
  const inst = market.listed().find((i) => i.id === Number(params.id));
  // A deleted (or not yet visible) instance: 200 {"instances": null} (vast-cli PR #405).
  return json(200, { instances: inst ? instanceView(inst, market.clock.now()) : null });
}

async function manage({ market, params, body }: Ctx): Promise<Reply> {
  const inst = market.exists(Number(params.id));
  if (!inst || inst.destroyedAt !== null) throw noSuchInstance();
  const parsed = ManageBody.safeParse(body ?? {});
  if (!parsed.success) throw invalidArgs(`Invalid args: ${z.prettifyError(parsed.error)}`);
  const { state, label } = parsed.data;
  if (state === undefined && label === undefined)
    throw invalidArgs('Invalid args: give state and/or label');
  if (label && label.length > MAX_MANAGED_LABEL)
    throw new ApiFailure(
      json(400, { success: false, error: 'label_too_long', msg: 'Label is too long.' }),
    );
  if (label !== undefined) inst.label = label;
  if (state !== undefined) await market.setIntended(inst, state);
  return json(200, { success: true });
}

/** PUT /api/v0/instances/bid_price/{id}/ {client_id, price}: an interruptible instance's new
 *  bid; one that now meets the machine's min_bid runs again. An on-demand instance cannot
 *  become a bid ("no way to change the bidding method"): 400 (its body is a guess). */
async function changeBid({ market, params, body }: Ctx): Promise<Reply> {
  const inst = market.exists(Number(params.id));
  if (!inst || inst.destroyedAt !== null) throw noSuchInstance();
  const parsed = BidBody.safeParse(body ?? {});
  if (!parsed.success) throw invalidArgs(`Invalid args: ${z.prettifyError(parsed.error)}`);
  const { price } = parsed.data;
  if (price < BID_PRICE.min || price > BID_PRICE.max)
    throw invalidArgs(`Invalid args: price must be from ${BID_PRICE.min} to ${BID_PRICE.max}`);
  if (inst.bid === null)
    throw invalidArgs(`Invalid args: instance ${inst.id} is on-demand, not an interruptible bid`);
  await market.changeBid(inst, price);
  return json(200, { success: true });
}

function destroy({ market, params, caller }: Ctx): Reply {
  const id = Number(params.id);
  const inst = market.exists(id);
  if (!inst)
    // destroy_instance.yaml, 404 "Instance not found".
    throw new ApiFailure(
      json(404, { success: false, error: 'not_found', msg: 'Instance not found' }),
    );
  const failure = takeDestroyFailure(market.faults, id);
  if (failure !== null) return serverError(failure);
  market.destroy(inst, caller.kind);
  return json(200, { success: true, msg: 'Instance destroyed successfully' });
}

/** vast.py's parse_env for a string `env`: "-e K=V -p 8080:8080 -h name". */
export function parseDockerOptions(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  const words = s.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
  for (let i = 0; i + 1 < words.length; i += 2) {
    const [flag, value] = [words[i]!, words[i + 1]!];
    if (flag === '-e') {
      const eq = value.indexOf('=');
      if (eq > 0) out[value.slice(0, eq)] = value.slice(eq + 1).replace(/^['"]|['"]$/g, '');
    } else if (flag === '-p') out[`-p ${value}`] = '1';
    else if (flag === '-h') out['-h'] = value;
    else break;
  }
  return out;
}

/** vast.py's `--login` string, "-u USER -p PASSWORD SERVER", as Vast.ai passes it to docker
 *  login; null when absent or not of that form. */
function parseDockerLogin(text: string | null): RegistryLogin | null {
  const m = text ? /^-u\s+(\S+)\s+-p\s+(\S+)\s+(\S+)$/.exec(text.trim()) : null;
  return m ? { username: m[1]!, password: m[2]!, server: m[3]! } : null;
}

// Offer search, the account's SSH keys, an instance's SSH keys and the current user.
import { z } from 'zod';
import { FilterError } from './filter-ops';
import { ApiFailure, json, noSuchInstance, type Reply } from './reply';
import { type Ctx, path, type Route } from './route';

export const FAKE_USER_ID = 214_207;

const KeyBody = z.object({ ssh_key: z.string().optional() });

export const accountRoutes: Route[] = [
  { method: 'POST', path: path('/api/v0/bundles/'), handle: searchOffers },
  { method: 'GET', path: path('/api/v0/ssh/'), handle: listAccountKeys },
  { method: 'POST', path: path('/api/v0/ssh/'), handle: addAccountKey },
  { method: 'DELETE', path: path('/api/v0/ssh/{id}/'), handle: deleteAccountKey },
  {
    method: 'GET',
    path: path('/api/v0/instances/{id}/ssh/'),
    instanceParam: 'id',
    handle: listInstanceKeys,
  },
  {
    method: 'POST',
    path: path('/api/v0/instances/{id}/ssh/'),
    instanceParam: 'id',
    handle: attachKey,
  },
  {
    method: 'DELETE',
    path: path('/api/v0/instances/{id}/ssh/{key}/'),
    instanceParam: 'id',
    handle: detachKey,
  },
  { method: 'GET', path: path('/api/v0/users/current/'), handle: currentUser },
];

function searchOffers({ market, body }: Ctx): Reply {
  try {
    return json(200, { offers: market.search(body) });
  } catch (err) {
    // search_offers.yaml, 400: {"error": "invalid_request", "msg": "Invalid json body"}.
    if (err instanceof FilterError)
      throw new ApiFailure(json(400, { error: 'invalid_request', msg: err.message }));
    throw err;
  }
}

/** show_ssh_keys.yaml: a bare array of {id, user_id, key, created_at, deleted_at}. */
function listAccountKeys({ market }: Ctx): Reply {
  return json(
    200,
    market.accountKeys.map((k) => ({
      id: k.id,
      user_id: FAKE_USER_ID,
      key: k.key,
      created_at: new Date(k.createdAt).toISOString(),
      deleted_at: null,
    })),
  );
}

/** create_ssh_key.yaml: {"success": true, "key": {id, user_id, public_key, …}}. */
function addAccountKey({ market, body }: Ctx): Reply {
  const key = publicKeyFrom(body, 'no_ssh_key');
  const k = market.addAccountKey(key);
  return json(200, {
    success: true,
    key: {
      id: k.id,
      user_id: FAKE_USER_ID,
      public_key: k.key,
      created_at: new Date(k.createdAt).toISOString(),
      deleted_at: null,
    },
  });
}

function deleteAccountKey({ market, params }: Ctx): Reply {
  if (!market.deleteAccountKey(Number(params.id)))
    // delete_ssh_key.yaml, 400 "Invalid request or SSH key not found".
    throw new ApiFailure(
      json(400, { success: false, error: 'no_ssh_key', msg: `No ssh key ${params.id}` }),
    );
  return json(200, { success: true });
}

/** show_instance_ssh_keys.yaml: `ssh_keys` is a JSON *string* holding the array. */
function listInstanceKeys({ market, params }: Ctx): Reply {
  const inst = liveInstance(market, params.id);
  const now = market.clock.now();
  const keys = inst.keys
    .filter((k) => k.removedAt === null || now < k.removedAt)
    .map((k) => ({ id: k.id, name: k.key.split(/\s+/)[2] ?? '', public_key: k.key }));
  return json(200, { success: true, ssh_keys: JSON.stringify(keys) });
}

function attachKey({ market, params, body }: Ctx): Reply {
  const inst = liveInstance(market, params.id);
  market.attachKey(inst, publicKeyFrom(body, 'invalid_args'));
  return json(200, { success: true, msg: 'SSH key attached successfully' });
}

function detachKey({ market, params }: Ctx): Reply {
  const inst = liveInstance(market, params.id);
  if (!market.detachKey(inst, Number(params.key)))
    throw new ApiFailure(
      json(404, { success: false, error: 'no_such_ssh_key', msg: 'SSH key not found.' }),
    );
  return json(200, { success: true, msg: 'SSH key removed from instance.' });
}

/** show_user.yaml (id, email, balance, ssh_key, sid) plus what vast.py's user_fields show;
 *  vast.py pops `api_key` from this answer, so the real one carries it. */
function currentUser({ market, accountApiKey }: Ctx): Reply {
  return json(200, {
    id: FAKE_USER_ID,
    username: 'tender-test',
    email: 'tender-test@example.invalid',
    fullname: 'Tender Test',
    balance: 0,
    credit: 25,
    balance_threshold: 0,
    balance_threshold_enabled: false,
    billed_expected: 0,
    billed_verified: 0,
    billing_creditonly: false,
    can_pay: true,
    email_verified: true,
    got_signup_credit: true,
    has_billing: true,
    has_payout: false,
    last4: '4242',
    paid_expected: 0,
    paid_verified: 0,
    ssh_key: market.accountKeys[0]?.key ?? '',
    sid: 'fake0000000000000000',
    api_key: accountApiKey,
  });
}

function liveInstance(market: Ctx['market'], id: string | undefined) {
  const inst = market.exists(Number(id));
  if (!inst || inst.destroyedAt !== null) throw noSuchInstance();
  return inst;
}

function publicKeyFrom(body: unknown, errorCode: string): string {
  const parsed = KeyBody.safeParse(body ?? {});
  const key = parsed.success ? parsed.data.ssh_key?.trim() : undefined;
  if (!key)
    throw new ApiFailure(
      json(400, { success: false, error: errorCode, msg: 'No ssh key provided' }),
    );
  if (!/^(ssh-|ecdsa-|sk-)/.test(key) || /PRIVATE KEY/.test(key))
    throw new ApiFailure(
      json(400, { success: false, error: errorCode, msg: 'Invalid ssh public key' }),
    );
  return key;
}

// A small stateful Vast.ai for the provider's unit tests: the endpoints the adapter calls,
// with the answer shapes of vast-cli's OpenAPI files, on a real 127.0.0.1 server. Faults are
// scripted per test through `intercept`. (The full fake, with real sshd nodes, billing and
// timing, is test/fakes/vast/.)
import { ScriptedServer, type Recorded, type Reply } from './scripted-server';

export const MINI_KEY = 'mini-vast-key-0123456789';

export interface MiniInstance extends Record<string, unknown> {
  id: number;
}

export class MiniVast {
  /** Search rows (search_offers.yaml), as the search answers them. */
  offers: Record<string, unknown>[] = [];
  readonly instances = new Map<number, MiniInstance>();
  readonly accountKeys: string[] = [];
  readonly attached: { id: number; key: string }[] = [];
  /** Consulted first: return a reply to script a fault, undefined to go on normally. */
  intercept: (req: Recorded) => Reply | undefined = () => undefined;
  private nextId = 5000;

  private constructor(readonly server: ScriptedServer) {}

  static async start(): Promise<MiniVast> {
    let self: MiniVast | null = null;
    const server = await ScriptedServer.start((req) => self!.handle(req));
    self = new MiniVast(server);
    return self;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Adds a search row; fields as search_offers.yaml. */
  addOffer(over: Record<string, unknown> = {}): Record<string, unknown> {
    const n = this.offers.length + 1;
    const row = {
      id: 1000 + n,
      ask_contract_id: 1000 + n,
      machine_id: 30_000 + n,
      gpu_name: 'RTX 4090',
      num_gpus: 1,
      gpu_ram: 24_564,
      dph_base: 0.4,
      storage_cost: 0.15,
      reliability: 0.995,
      verification: 'verified',
      inet_down: 850,
      inet_up: 780,
      geolocation: 'Sweden, SE',
      direct_port_count: 64,
      disk_space: 512,
      rentable: true,
      rented: false,
      ...over,
    };
    this.offers.push(row);
    return row;
  }

  /** Puts an instance straight into the account (fields as show_instance.yaml). */
  addInstance(over: Partial<MiniInstance> = {}): MiniInstance {
    const id = over.id ?? this.nextId++;
    const inst: MiniInstance = {
      id,
      actual_status: 'loading',
      intended_status: 'running',
      cur_state: 'running',
      next_state: 'running',
      label: null,
      extra_env: [],
      status_msg: null,
      machine_id: 39_999,
      gpu_name: 'RTX 4090',
      num_gpus: 1,
      disk_space: 32,
      dph_base: 0.4,
      dph_total: 0.406667,
      storage_cost: 0.15,
      public_ipaddr: '127.0.0.1',
      ssh_host: 'ssh1.vast.example',
      ssh_port: 10022,
      ports: {},
      image_runtype: 'ssh ssh_direc ssh_proxy',
      ...over,
    };
    this.instances.set(id, inst);
    return inst;
  }

  private handle(req: Recorded): Reply {
    const scripted = this.intercept(req);
    if (scripted) return scripted;
    if (req.authorization !== `Bearer ${MINI_KEY}`)
      return {
        status: 401,
        json: { success: false, error: 'auth_error', msg: 'Invalid user key' },
      };
    const { method, path } = req;
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/api/v0/bundles/') return this.search(req.body);
    if (method === 'PUT' && (m = /^\/api\/v0\/asks\/(\d+)\/$/.exec(path)))
      return this.create(Number(m[1]), req.body as Record<string, unknown>);
    if (method === 'GET' && path === '/api/v0/instances/')
      return {
        json: { instances_found: this.instances.size, instances: [...this.instances.values()] },
      };
    if ((m = /^\/api\/v0\/instances\/(\d+)\/$/.exec(path))) {
      const inst = this.instances.get(Number(m[1]));
      if (!inst)
        return {
          status: 404,
          json: { success: false, error: 'not_found', msg: 'Instance not found' },
        };
      if (method === 'GET') return { json: { instances: inst } };
      if (method === 'DELETE') {
        this.instances.delete(inst.id);
        return { json: { success: true } };
      }
    }
    if ((m = /^\/api\/v0\/instances\/bid_price\/(\d+)\/$/.exec(path)) && method === 'PUT') {
      const inst = this.instances.get(Number(m[1]));
      const price = (req.body as { price?: unknown }).price;
      if (!inst || typeof price !== 'number')
        return { status: 404, json: { success: false, error: 'no_such_instance' } };
      inst.dph_base = price; // a bid instance bills its bid
      return { json: { success: true } };
    }
    if ((m = /^\/api\/v0\/instances\/(\d+)\/ssh\/$/.exec(path)) && method === 'POST') {
      this.attached.push({
        id: Number(m[1]),
        key: String((req.body as { ssh_key?: unknown }).ssh_key),
      });
      return { json: { success: true, msg: 'SSH key attached successfully' } };
    }
    if (path === '/api/v0/ssh/' && method === 'GET')
      return {
        json: this.accountKeys.map((key, i) => ({ id: i + 1, user_id: 1, key, deleted_at: null })),
      };
    if (path === '/api/v0/ssh/' && method === 'POST') {
      const key = String((req.body as { ssh_key?: unknown }).ssh_key);
      this.accountKeys.push(key);
      return { json: { success: true, key: { id: this.accountKeys.length, public_key: key } } };
    }
    return { status: 404, contentType: 'text/html', text: '<title>404 Not Found</title>' };
  }

  private search(body: unknown): Reply {
    const limit = (body as { limit?: number }).limit ?? 64;
    return { json: { offers: this.offers.filter((o) => o.rented !== true).slice(0, limit) } };
  }

  private create(offerId: number, body: Record<string, unknown>): Reply {
    const offer = this.offers.find((o) => o.id === offerId && o.rented !== true);
    if (!offer)
      return {
        status: 404,
        json: {
          success: false,
          error: 'invalid_args',
          msg: `error 404/3603: no_such_ask Instance type by id ${offerId} is not available.`,
          ask_id: offerId,
        },
      };
    offer.rented = true;
    const env = (body.env ?? {}) as Record<string, string>;
    const inst = this.addInstance({
      label: typeof body.label === 'string' ? body.label : null,
      extra_env: Object.entries(env),
      machine_id: offer.machine_id,
      disk_space: body.disk,
      image_uuid: body.image,
      // A `price` is a bid (create_instance.yaml); its dph_base is the bid.
      ...(typeof body.price === 'number'
        ? { is_bid: true, dph_base: body.price, min_bid: offer.min_bid ?? null }
        : { is_bid: false }),
    });
    return { json: { success: true, new_contract: inst.id } };
  }
}

import type { SelfTeardown } from '../../src-agent/wire/protocol';
import type { Offer, OfferFilter, PoolSpec } from '../contract';
import type { NodeShape } from './pool-shapes';

// Thrown by providers; defined in base so every layer (errors as data) can name it.
export { ProviderError } from '../base/provider-error';

/** The provider plugin boundary.
 *
 *  Providers are stateless adapters: no NodeRecord, no logs, no SSH. Polling and deadlines
 *  live in the orchestrator. Every lease a provider creates carries the label it was given,
 *  so that Tender can find it again after losing its own state. */

/** Where a node is reached. `local` nodes are folders on this machine. */
export type NodeEndpoint =
  | { kind: 'local'; dir: string }
  | {
      kind: 'ssh';
      host: string;
      port: number;
      user: string;
      /** `tender` (Tender's own key) or the path of a private key file. */
      authRef: string;
      /** What the host key is pinned to: `host:<name>` for your machines, `lease:<label>` for
       *  rented ones (whose addresses are reused by strangers later). */
      hostKeyScope: string;
      /** Whether ~/.ssh/known_hosts is consulted (your machines), besides the pin. */
      knownHosts: boolean;
      /** Where other nodes reach this one, when not at `host` with the same ports (a
       *  marketplace's public address and port mappings: `{"29500": 41234}`). */
      peer?: { host: string; ports: Record<string, number> };
      /** A node inside this Slurm allocation, reached through the login node at `host`:
       *  commands run through `srun --jobid --overlap` (transport/srun-shell.ts). Read only
       *  through `allocationOf` (allocation.ts); the name is kept in stored records. */
      slurmJobId?: string;
    };

/** What a provider needs to destroy a lease, with no other state. Stored in the ledger. */
export type DestroyHandle = { provider: string; leaseId: string } & Record<string, string>;

export interface LeaseFacts {
  provider: string;
  /** Tender's id for the lease: `<provider>:<native id>`, e.g. `vastai:123456`. */
  leaseId: string;
  /** The provider's own id (Vast contract id, local folder name). */
  contractId: string;
  /** The label the lease was created with (`tender-<install>-<run>-<node>`). */
  label: string;
  offerId?: string;
  destroyHandle: DestroyHandle;
  /** $/h quoted by the provider at creation; null when nothing bills (local, ssh). */
  pricePerHour: number | null;
  metadata: Record<string, string>;
  /** What the lease is doing, as the listing it came from says (listLabeled only; absent
   *  where the provider cannot tell). The reconciler reads it from the listing it makes
   *  anyway: an interruption costs no call of its own. */
  condition?: LeaseCondition;
}

/** A listed lease's run state. `outbid`: an interruptible lease stopped because its bid
 *  lost (its disk is kept); `stopped`: stopped for another reason; `exited`: its machine or
 *  container stopped by itself; `loading`: not running yet. */
export interface LeaseCondition {
  state: 'running' | 'loading' | 'stopped' | 'outbid' | 'exited';
  /** Interruptible leases: the bid standing now, $/h for the machine without storage. */
  bid?: number;
  /** Interruptible leases: the lowest bid that would run it now. */
  minBid?: number;
}

/** A bid as the provider accepted it. */
export interface BidChange {
  bid: number;
  /** The lowest bid that runs the lease now, when the provider said. */
  minBid: number | null;
}

export interface CreateLeaseRequest {
  label: string;
  runId: string;
  logicalId: string;
  /** Provider-specific desired shape, already validated by the provider's own schema. */
  shape: Record<string, unknown>;
  /** The job's capability constraints: a marketplace rents only offers that can meet them
   *  (contract/constraint.ts); the node's probe checks them again at join. */
  constraints?: string[];
  /** Ports of the node its peers must reach (a distributed run's master port): a provider
   *  behind a NAT maps them at create and reports them in the endpoint's `peer`. */
  openPorts?: number[];
  /** The run's max duration: a provider with a hard limit of its own (Slurm's `--time`)
   *  sets it to this. */
  maxDurationMs?: number;
  /** A create resumed after a crash: one may have happened before it (a provider list
   *  looks the label up on every member first). */
  resumed?: boolean;
  /** The value of a secret the pool names by its variable (`image_login.password_env`):
   *  given with the run's start, else from the environment of the process driving the run;
   *  undefined when neither has it. Never stored, logged, or put in a lease's facts. */
  secret?: (name: string) => string | undefined;
  /** Writes a line to the node's log (the ledger): a provider list says which member it
   *  tries, and why the one before could not rent. */
  note?: (line: string) => void;
}

export interface CreateLeaseResult {
  lease: LeaseFacts;
  /** Present when the provider knows the endpoint at once (local, ssh). */
  endpoint: NodeEndpoint | null;
}

/** Takes a provider's status line for a lease that is not usable yet. */
export type LeaseReporter = (status: string, isImagePull?: boolean) => void;

/** How often the orchestrator asks a provider about one lease, in ms. */
export interface ProviderPolling {
  endpointPollMs: number;
  destroyPollMs: number;
  /** How long a lease may take to have an endpoint (a queued Slurm job waits its turn). */
  endpointDeadlineMs?: number;
}

export interface Provider {
  readonly kind: string;
  /** Faster polling than the defaults (10 s, 5 s: provider APIs rate-limit), for providers
   *  that answer in milliseconds (local folders). */
  readonly polling?: Partial<ProviderPolling>;
  /** A marketplace: a node that fails to boot may be replaced by a lease on another host.
   *  (Machines you own are what they are: no replacement.) */
  readonly replacesFailedBoots?: boolean;
  /** Its leases cost money: reconciled at every start even with no live lease in the
   *  ledger, so a lease the ledger lost is found (an orphan) before it bills for long. */
  readonly bills?: boolean;
  /** False when the provider cannot be used as configured (e.g. no API key): it is then
   *  left out of reconciliation instead of reported unreachable at every look. */
  isConfigured?(): boolean;
  /** A lease that failed to boot was destroyed: keep its host out of later searches. */
  rememberBootFailure?(lease: LeaseFacts, reason: string): void;
  /** How a node of this provider destroys itself when its dead-man switch fires, with the
   *  narrowest credential the provider offers (never the account key). Without it the node
   *  stops the job and removes the run's files (machines you own are not destroyed). */
  selfTeardown?(lease: LeaseFacts): SelfTeardown;

  /** The desired shape of each node a pool asks for: one per count, per offer picked, or
   *  per host named. Throws `TenderError` (`bad_input`, naming the fix) for pool fields
   *  this provider cannot honour; nothing is created before every shape is known. */
  shapeNodes(pool: PoolSpec): NodeShape[];

  /** A marketplace's rentable offers matching `filter`, cheapest all-in price first. */
  searchOffers?(filter: OfferFilter, signal: AbortSignal): Promise<Offer[]>;

  /** Creates one lease labelled `req.label`. Returns when the provider has accepted it.
   *  Idempotent per label: a lease that already carries the label is returned, not a second
   *  one made (so a create resumed after a crash needs no lookup of its own).
   *  Throws `ProviderError`; `outcomeUnknown: true` means the lease may exist anyway (a
   *  timeout, a 5xx after sending) — the caller must look the label up before retrying. */
  createLease(req: CreateLeaseRequest, signal: AbortSignal): Promise<CreateLeaseResult>;

  /** One look at the lease: its endpoint when usable, null while not yet. Never polls.
   *  Throws `ProviderError` with `fatal: true` when the lease can never become usable.
   *  `report`: the provider's own words for what the lease is doing while not yet usable
   *  (Vast.ai: `loading: pulling image…`), where it says; shown while the lease provisions.
   *  `isImagePull`: the words are about the image being pulled, so the orchestrator waits
   *  for as long as they show progress (the stall rule, nodes/pull-watch.ts). */
  lookupEndpoint(
    lease: LeaseFacts,
    signal: AbortSignal,
    report?: LeaseReporter,
  ): Promise<NodeEndpoint | null>;

  /** Destroys the lease. Returns when the provider has accepted the request. A lease that
   *  no longer exists is not an error. Never polls. `'gone'`: the provider's own answer to
   *  the destroy already confirms the lease is gone (the ssh provider's script looks after
   *  removing it), so no `isGone` is asked; otherwise the caller confirms with `isGone`. */
  destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void | 'gone'>;

  /** A destroy of this lease is expected (its job runs and the node is not kept): the
   *  provider may get ready so that `destroyLease` answers sooner (the ssh provider opens
   *  the destroy's command ahead, waiting for its go). Nothing is destroyed by it; what is
   *  never fired ends with the provider's `close`. */
  armDestroy?(handle: DestroyHandle): void;

  /** What ended a lease that is gone, in the provider's words (Slurm: the time limit, a
   *  node failure, preemption), and what it means to the recovery rules: `node_lost` and
   *  `preempted` are recovered per `[recovery]`, `ended` (a time limit reached, a cancel from
   *  outside) is not. Absent: a gone lease is a lost node. */
  whyGone?(
    lease: LeaseFacts,
    signal: AbortSignal,
  ): Promise<{ words: string; cause: 'node_lost' | 'preempted' | 'ended' }>;

  /** Closes what the provider keeps open (a cluster's login connection); the core calls it
   *  when it closes. */
  close?(): Promise<void>;

  /** Whether the provider still lists the lease (used to confirm a destroy). */
  isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean>;

  /** Deletes what the provider made beside this install's leases (RunPod: a lease's
   *  registry login) that no lease needs any more: named under `prefix`, and `keep(label)`
   *  false (keep: a lease listed with that label, or the ledger holding it live). Called by
   *  the ledger's writer only (the reconciler); returns what it removed, in words. */
  removeLeftovers?(
    prefix: string,
    keep: (label: string) => boolean,
    signal: AbortSignal,
  ): Promise<string[]>;

  /** Every lease whose label starts with `prefix`, including ones the ledger lost. */
  listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]>;

  /** A look at the market before a run is written, for what only the market can refuse (a
   *  bid above the on-demand price). Throws `TenderError` (`bad_input`, naming the fix). */
  checkPool?(pool: PoolSpec, signal: AbortSignal): Promise<void>;

  /** Sets the bid of an interruptible lease. Returns when the provider accepted it; an
   *  outbid lease runs again once the provider lists it running. Throws `TenderError`
   *  (`bad_input`) for a lease that takes no bid, or a bid that it would not run at or that
   *  is above the on-demand price. */
  changeBid?(lease: LeaseFacts, bid: number, signal: AbortSignal): Promise<BidChange>;

  /** Starts a stopped lease again (its disk kept: a node that stopped itself for outputs
   *  nobody collected). Returns when the provider accepted the request; the lease runs
   *  once it is listed running — which a machine whose GPUs were rented meanwhile may
   *  never be. Never polls. */
  startLease?(lease: LeaseFacts, signal: AbortSignal): Promise<void>;
}

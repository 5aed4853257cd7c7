import { describe, expect, it } from 'vitest';
import { TenderError } from '../../base/tender-error';
import { JobSpec, PoolSpec, type CommandArgs, type Receipt, type RunView } from '../../contract';
import { REDACTED } from '../../jobs/secrets/redact-job';
import type { RunRow } from '../../ledger/rows';
import type { Provider } from '../../providers/provider';
import { SecretMemory } from '../notify/secret-memory';
import { runStartHandlers, type RunStartDeps } from './run-start';

const INSTALL = 'install-a';

/** The earlier run, as the ledger keeps it: its secret redacted. */
const earlier: RunRow = {
  id: 'r-old',
  jobId: 'r-old.j0',
  jobName: 'j',
  source: null,
  provider: 'vastai',
  count: 2,
  pool: { provider: 'vastai', count: 2, interruptible: true, bid: 0.3 },
  keep: false,
  status: 'completed',
  detached: false,
  driverPid: null,
  createdAt: 0,
  endedAt: 1,
  failedReason: null,
  outputsDir: '/nowhere',
  policy: null,
  origin: 'app',
};
const stored = JobSpec.parse({
  name: 'j',
  run: 'true',
  env: { T: { secret: true, value: REDACTED } },
});
const receipt = {
  runId: earlier.id,
  jobId: 'r-old.j0',
  installId: INSTALL,
  job: { params: {} },
  workspace: { manifest: null, files: null },
} as unknown as Receipt;

function setup(opts: { hasKey?: boolean; refusal?: string; isWriter?: boolean } = {}) {
  const memory = new SecretMemory();
  const checked: PoolSpec[] = [];
  const started: { args: CommandArgs<'run.start'>; redacted: string }[] = [];
  const provider = {
    kind: 'vastai',
    isConfigured: () => opts.hasKey ?? true,
    checkPool: async (pool: PoolSpec) => {
      checked.push(pool);
      if (opts.refusal) throw new TenderError('bad_input', opts.refusal);
    },
  } as unknown as Provider;
  const d: RunStartDeps = {
    home: '/nowhere',
    env: {},
    providers: { get: () => provider },
    requireWriter: () => {
      if (opts.isWriter === false) throw new TenderError('busy', 'another process writes');
    },
    ledger: {
      installId: () => INSTALL,
      getRun: (id) => (id === earlier.id ? earlier : undefined),
      jobSpec: () => stored,
      listCells: () => [],
    },
    secrets: memory,
    runs: {
      // What a notice raised as the run begins would be scrubbed to.
      start: async (args) => {
        started.push({ args, redacted: memory.redactor()(`got ${given(args)}`) });
        return { id: 'r-new' } as RunView;
      },
    },
  };
  return { handlers: runStartHandlers(d), checked, started };
}

function given(args: CommandArgs<'run.start'>): string {
  const t = args.job.env.T;
  return typeof t === 'object' && 'value' in t ? t.value : '';
}

const startArgs = (value: string): CommandArgs<'run.start'> => ({
  job: JobSpec.parse({ name: 'j', run: 'true', env: { T: { secret: true, value } } }),
  pool: PoolSpec.parse(earlier.pool),
  keep: false,
  policy: {},
  freshSetup: false,
  reuseWarm: true,
  secrets: {},
});
const rerunArgs = (value: string): CommandArgs<'run.rerun'> => ({
  runId: earlier.id,
  secrets: { T: value },
  failed: false,
  freshSetup: false,
  reuseWarm: true,
});
const receiptArgs = (value: string): CommandArgs<'run.fromReceipt'> => ({
  receipt,
  secrets: { T: value },
  freshSetup: false,
  reuseWarm: true,
});

async function refusal(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => 'started',
    (err: unknown) => (err instanceof TenderError ? { ...err, message: err.message } : err),
  );
}

describe('run start: one path for run.start, run.rerun and run.fromReceipt', () => {
  it('remembers run.start, run.rerun and run.fromReceipt secrets before the run begins', async () => {
    const { handlers, started } = setup();
    await handlers['run.start'](startArgs('s3cret-start'));
    await handlers['run.rerun'](rerunArgs('s3cret-rerun'));
    const again = await handlers['run.fromReceipt'](receiptArgs('s3cret-receipt'));
    expect(started.map((s) => given(s.args))).toEqual([
      's3cret-start',
      's3cret-rerun',
      's3cret-receipt',
    ]);
    expect(started.map((s) => s.redacted)).toEqual(['got ***', 'got ***', 'got ***']);
    expect(again.workspace).toEqual({ same: true, added: null, removed: null, changed: null });
  });

  it('a provider with no key refuses all three the same way, before the provider is asked', async () => {
    const { handlers, checked, started } = setup({ hasKey: false });
    const start = await refusal(handlers['run.start'](startArgs('s3cret-start')));
    expect(start).toMatchObject({
      code: 'bad_input',
      message: 'vastai is not configured: it has no API key',
      hint: expect.stringContaining('TENDER_VASTAI_API_KEY'),
    });
    expect(await refusal(handlers['run.rerun'](rerunArgs('s3cret-rerun')))).toEqual(start);
    expect(await refusal(handlers['run.fromReceipt'](receiptArgs('x-secret')))).toEqual(start);
    expect(checked).toEqual([]);
    expect(started).toEqual([]);
  });

  it("the provider judges each start's pool: a receipt rerun's is its run's, on one node", async () => {
    const ok = setup();
    await ok.handlers['run.start'](startArgs('s3cret-start'));
    await ok.handlers['run.rerun'](rerunArgs('s3cret-rerun'));
    await ok.handlers['run.fromReceipt'](receiptArgs('s3cret-receipt'));
    const pool = PoolSpec.parse(earlier.pool);
    expect(ok.checked).toEqual([pool, pool, { ...pool, count: 1 }]);
    expect(ok.started.map((s) => s.args.pool)).toEqual(ok.checked);

    const market = 'a bid above the on-demand price rents nothing cheaper; use on-demand';
    const refused = setup({ refusal: market });
    for (const attempt of [
      refused.handlers['run.start'](startArgs('s3cret-start')),
      refused.handlers['run.rerun'](rerunArgs('s3cret-rerun')),
      refused.handlers['run.fromReceipt'](receiptArgs('s3cret-receipt')),
    ])
      expect(await refusal(attempt)).toMatchObject({ code: 'bad_input', message: market });
    expect(refused.started).toEqual([]);
  });

  it("a rerun's origin is who starts it again, never the earlier run's", async () => {
    const { handlers, started } = setup();
    await handlers['run.start']({ ...startArgs('s'), origin: 'mcp:claude-code' });
    await handlers['run.rerun']({ ...rerunArgs('s'), origin: 'cli' });
    await handlers['run.fromReceipt']({ ...receiptArgs('s'), origin: 'mcp:cursor' });
    await handlers['run.rerun'](rerunArgs('s'));
    expect(started.map((s) => s.args.origin)).toEqual([
      'mcp:claude-code',
      'cli',
      'mcp:cursor',
      undefined, // the earlier run's 'app' is not carried over
    ]);
  });

  it('a reader is refused before the provider is asked', async () => {
    const { handlers, checked } = setup({ isWriter: false });
    for (const attempt of [
      handlers['run.start'](startArgs('s3cret-start')),
      handlers['run.rerun'](rerunArgs('s3cret-rerun')),
      handlers['run.fromReceipt'](receiptArgs('s3cret-receipt')),
    ])
      expect(await refusal(attempt)).toMatchObject({ code: 'busy' });
    expect(checked).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { JobSpec, PoolSpec, type Offer } from '../../../src-main/contract';
import { EMPTY_DRAFT, type ComposerDraft } from '../../store/ui';
import {
  draftProblems,
  draftToPlanInput,
  draftToStartInput,
  estimatedHourly,
  lines,
} from './draft-to-run';

const draft = (patch: Partial<ComposerDraft>): ComposerDraft => ({
  ...EMPTY_DRAFT,
  name: 'train',
  run: 'python train.py',
  ...patch,
});

const offer = (offerId: string, pricePerHour: number): Offer => ({
  provider: 'vastai',
  offerId,
  machineId: `m${offerId}`,
  gpuName: 'RTX 4090',
  gpuCount: 1,
  vramGb: 24,
  gpuPricePerHour: pricePerHour - 0.01,
  storagePricePerHour: 0.01,
  pricePerHour,
  reliability: 0.99,
  verified: true,
  downMbps: 500,
  upMbps: 500,
  location: null,
  cudaMaxGood: null,
  dlperf: null,
  directPorts: 0,
});

describe('draftToStartInput', () => {
  it('maps every job field, dropping blank lines, rows and an empty setup', () => {
    const input = draftToStartInput(
      draft({
        name: '  train ',
        setup: '   ',
        workdir: ' /home/me/proj ',
        exclude: ['/data', '', ' *.ckpt '],
        outputs: 'out/metrics.json\n\n  out/ckpt/ \n',
        env: [
          { key: 'SEED', value: '1', secret: false },
          { key: 'TOKEN', value: 's3cret', secret: true },
          { key: 'HF_TOKEN', value: '', secret: true, fromEnv: 'HF' },
          { key: '  ', value: '', secret: false },
        ],
        params: [
          { key: 'STEPS', value: '400' },
          { key: '', value: '' },
        ],
        keep: true,
        source: '/home/me/proj/tender.toml',
      }),
    );
    expect(input).toEqual({
      job: {
        name: 'train',
        run: 'python train.py',
        workspace: { workdir: '/home/me/proj', exclude: ['/data', '*.ckpt'] },
        outputs: ['out/metrics.json', 'out/ckpt/'],
        env: {
          SEED: '1',
          TOKEN: { secret: true, value: 's3cret' },
          HF_TOKEN: { secret: true, fromEnv: 'HF' },
        },
        params: { STEPS: '400' },
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: true,
      origin: 'app', // the app starts it: shown with the run
      policy: { afterJob: 'keep_warm' },
      source: '/home/me/proj/tender.toml',
    });
    // What the composer sends is what the contract accepts, unchanged.
    expect(JobSpec.parse(input.job)).toMatchObject(input.job);
    expect(PoolSpec.parse(input.pool)).toMatchObject(input.pool);
  });

  it('sends no workspace without a folder, and the setup as typed when there is one', () => {
    const input = draftToStartInput(draft({ setup: 'pip install -r req.txt\n' }));
    expect(input.job.workspace).toBeUndefined();
    expect(input.job.setup).toBe('pip install -r req.txt\n');
  });

  it('the setup fingerprint goes with a setup, one file per line; a rebuild only when asked', () => {
    const input = draftToStartInput(
      draft({ setup: 'pip install -r req.txt', setupFingerprint: ' req.txt \n\nconstraints.txt' }),
    );
    expect(input.job.setup_fingerprint).toEqual(['req.txt', 'constraints.txt']);
    expect(input.freshSetup).toBeUndefined();
    expect(draftToStartInput(draft({ setup: 'x', freshSetup: true })).freshSetup).toBe(true);
    // Without a setup there is nothing to fingerprint: the lines are not sent.
    const none = draftToStartInput(draft({ setup: ' ', setupFingerprint: 'req.txt' }));
    expect(none.job.setup_fingerprint).toBeUndefined();
  });

  it('setup is cached by default (keyed on the usual dependency files); unticked it runs every time', () => {
    // [what, draft fields, expected setup keys of the job, freshSetup]
    // prettier-ignore
    const cases: [string, Partial<ComposerDraft>, Record<string, unknown>, boolean | undefined][] = [
      ['a setup alone: cached, no files named', { setup: 'pip install -r requirements.txt' }, { setup_fingerprint: [] }, undefined],
      ['files named', { setup: 'x', setupFingerprint: 'req.txt' }, { setup_fingerprint: ['req.txt'] }, undefined],
      ['not cached: no files sent, no rebuild asked', { setup: 'x', setupCache: false, setupFingerprint: 'req.txt', freshSetup: true }, { setup_cache: false }, undefined],
    ];
    for (const [what, fields, keys, fresh] of cases) {
      const input = draftToStartInput(draft(fields));
      const { setup_fingerprint, setup_cache } = input.job;
      const got = Object.fromEntries(
        Object.entries({ setup_fingerprint, setup_cache }).filter(([, v]) => v !== undefined),
      );
      expect(got, what).toEqual(keys);
      expect(input.freshSetup, what).toBe(fresh);
    }
  });

  it('"Use a new node" asks run.start not to claim a warm node; run.plan always may', () => {
    expect(draftToStartInput(draft({})).reuseWarm).toBeUndefined();
    expect(draftToStartInput(draft({ newNode: true })).reuseWarm).toBe(false);
    const plan = draftToPlanInput(draft({ newNode: true, keep: true }));
    expect(plan).toEqual({
      job: draftToStartInput(draft({})).job,
      pool: draftToStartInput(draft({})).pool,
      reuseWarm: true,
    });
  });

  it('ssh: one node per host picked; market fields never leak into other providers', () => {
    const base = { offerFilter: { gpu: 'RTX 4090', maxPrice: 0.5 }, offers: [offer('1', 0.4)] };
    expect(
      draftToStartInput(draft({ ...base, provider: 'ssh', hosts: ['a', 'b'], count: 5 })).pool,
    ).toEqual({
      provider: 'ssh',
      count: 2,
      verify: [],
      hosts: ['a', 'b'],
    });
    expect(draftToStartInput(draft({ ...base, provider: 'local', count: 3 })).pool).toEqual({
      provider: 'local',
      count: 3,
      verify: [],
    });
  });

  it('vastai: picked offers by id, the filter as the node shape, count covers the offers', () => {
    const pool = draftToStartInput(
      draft({
        provider: 'vastai',
        count: 1,
        offers: [offer('11', 0.35), offer('12', 0.4)],
        offerFilter: {
          gpu: 'RTX 4090',
          gpuCount: 1,
          maxPrice: 0.5,
          diskGb: 64,
          region: 'EU',
          limit: 20,
        },
        verify: ['nvidia-smi', ' '],
        image: ' pytorch/pytorch:latest ',
      }),
    ).pool;
    expect(pool).toEqual({
      provider: 'vastai',
      count: 2,
      verify: ['nvidia-smi'],
      offers: ['11', '12'],
      gpu: 'RTX 4090',
      gpu_count: 1,
      max_price: 0.5,
      disk_gb: 64,
      image: 'pytorch/pytorch:latest',
    });
    expect(PoolSpec.parse(pool)).toMatchObject(pool);
  });

  it.each([
    [false, '0.3', {}],
    [true, '', { interruptible: true }],
    [true, ' 0.25 ', { interruptible: true, bid: 0.25 }],
  ])('vastai interruptible %s, bid %j: %j', (interruptible, bid, want) => {
    const pool = draftToStartInput(draft({ provider: 'vastai', interruptible, bid })).pool;
    expect(pool).toMatchObject(want);
    if (!interruptible) expect(pool).not.toHaveProperty('interruptible');
    expect(PoolSpec.parse(pool)).toMatchObject(pool);
  });

  it.each<[string, Partial<ComposerDraft>, object]>([
    ['RunPod', { provider: 'runpod' }, { provider: 'runpod' }],
    ['Lambda Cloud, no bid', { provider: 'lambda', interruptible: true }, { provider: 'lambda' }],
    ['a chain', { provider: 'chain', chain: ['runpod', 'vastai'] }, { provider: 'runpod,vastai' }],
    ['a chain of one', { provider: 'chain', chain: ['lambda'] }, { provider: 'lambda' }],
    [
      'the cheapest, on a bid',
      { provider: 'cheapest', interruptible: true, bid: '0.4' },
      { provider: 'cheapest', interruptible: true, bid: 0.4 },
    ],
  ])('%s: the shape and image go as for Vast.ai', (_, over, want) => {
    const pool = draftToStartInput(
      draft({ count: 2, offerFilter: { gpu: 'A100', maxPrice: 2 }, image: 'img:1', ...over }),
    ).pool;
    expect(pool).toEqual({
      count: 2,
      verify: [],
      offers: [],
      gpu: 'A100',
      max_price: 2,
      image: 'img:1',
      ...want,
    });
    expect(PoolSpec.parse(pool)).toMatchObject({ ...pool, provider: pool.provider });
  });

  it.each([
    ['', undefined, undefined],
    [' 15m ', '15m', undefined],
    ['30s', '30s', 'Give up a pull after: a duration from 1m to 24h without progress, e.g. 15m'],
    [
      'forever',
      'forever',
      'Give up a pull after: a duration from 1m to 24h without progress, e.g. 15m',
    ],
  ])('pull stall %j: pool.pull_stall %j, problem %j', (typed, sent, problem) => {
    const d = draft({ provider: 'vastai', pullStall: typed });
    expect(draftToStartInput(d).pool.pull_stall).toBe(sent);
    expect(draftProblems(d).pool).toBe(problem);
    if (!problem) expect(PoolSpec.parse(draftToStartInput(d).pool).pull_stall).toBe(sent);
  });

  it('offers picked on another marketplace, or for several, are a problem of the pool', () => {
    const picked = [offer('11', 0.35)];
    expect(draftProblems(draft({ provider: 'runpod', offers: picked })).pool).toMatch(
      /are Vast\.ai's/,
    );
    expect(draftProblems(draft({ provider: 'chain', offers: picked })).pool).toMatch(
      /belong to Vast\.ai alone/,
    );
    expect(draftProblems(draft({ provider: 'vastai', offers: picked })).pool).toBeUndefined();
  });

  it('a pool of several marketplaces estimates like one: picked plus the expected match', () => {
    expect(
      estimatedHourly(
        { ...EMPTY_DRAFT, provider: 'cheapest', count: 2, offers: [], offerFilter: {} },
        0.5,
      ),
    ).toEqual({ perHour: 1, isUpperBound: false });
  });

  it("constraints, one per line, become the job's; one that does not parse is named", () => {
    const job = draftToStartInput(draft({ constraints: ' gpu.vram >= 24GB \n\ncuda >= 12.1' })).job;
    expect(job.constraints).toEqual(['gpu.vram >= 24GB', 'cuda >= 12.1']);
    expect(draftToStartInput(draft({ constraints: '' })).job).not.toHaveProperty('constraints');
    expect(draftProblems(draft({ constraints: 'gpu.vram 24GB' })).pool).toMatch(
      /constraint "gpu\.vram 24GB": no operator/,
    );
  });

  it('a bid that is not a price is named, with the fix', () => {
    for (const bid of ['cheap', '-1', '0'])
      expect(draftProblems(draft({ provider: 'vastai', interruptible: true, bid })).pool).toMatch(
        /bid is a price in \$\/h/,
      );
    expect(draftProblems(draft({ provider: 'vastai', interruptible: false, bid: 'x' }))).toEqual(
      {},
    );
  });
});

describe('draftProblems', () => {
  it('names the fields to fix', () => {
    expect(draftProblems(draft({}))).toEqual({});
    expect(
      draftProblems({
        ...EMPTY_DRAFT,
        env: [
          { key: 'A', value: '1', secret: false },
          { key: 'A', value: '2', secret: false },
        ],
        params: [{ key: '', value: '3' }],
        provider: 'ssh',
      }),
    ).toEqual({
      name: expect.any(String),
      run: expect.any(String),
      env: 'A variable is named twice',
      params: 'A parameter has no name',
      pool: expect.stringContaining('host'),
    });
    expect(
      draftProblems(draft({ env: [{ key: '', value: '', secret: true, fromEnv: 'X' }] })).env,
    ).toBe('A variable has a value but no name');
    expect(draftProblems(draft({ env: [{ key: '1BAD', value: 'x', secret: false }] })).env).toMatch(
      /not a variable name/,
    );
    expect(
      draftProblems(
        draft({
          params: [
            { key: 'max-steps', value: '1' },
            { key: 'MAX_STEPS', value: '2' },
          ],
        }),
      ).params,
    ).toMatch(/same TENDER_PARAM_/);
  });
});

describe('estimatedHourly', () => {
  const vast = { provider: 'vastai' as const, offerFilter: {} };
  it('sums picked offers, adds the cheapest match for the rest, else the price cap', () => {
    expect(
      estimatedHourly({ ...vast, count: 2, offers: [offer('1', 0.3), offer('2', 0.5)] }, null),
    ).toEqual({
      perHour: 0.8,
      isUpperBound: false,
    });
    expect(estimatedHourly({ ...vast, count: 3, offers: [offer('1', 0.3)] }, 0.25)).toEqual({
      perHour: 0.8,
      isUpperBound: false,
    });
    expect(
      estimatedHourly({ ...vast, count: 2, offers: [], offerFilter: { maxPrice: 0.6 } }, null),
    ).toEqual({ perHour: 1.2, isUpperBound: true });
    expect(estimatedHourly({ ...vast, count: 2, offers: [] }, null)).toBeNull();
    expect(estimatedHourly({ ...vast, provider: 'local', count: 1, offers: [] }, 0.3)).toBeNull();
  });

  it('an interruptible pool: the bid per node when typed, else at most the on-demand price', () => {
    const bids = { ...vast, count: 2, offers: [], interruptible: true };
    expect(estimatedHourly({ ...bids, bid: '0.2' }, 0.3)).toEqual({
      perHour: 0.4,
      isUpperBound: false,
      isBid: true,
    });
    expect(estimatedHourly({ ...bids, bid: '' }, 0.3)).toEqual({
      perHour: 0.6,
      isUpperBound: true,
    });
  });
});

describe('lines', () => {
  it('trims and drops blank lines from text or a list', () => {
    expect(lines(' a \n\n b')).toEqual(['a', 'b']);
    expect(lines(['', ' c '])).toEqual(['c']);
  });
});

describe('limits', () => {
  it('become the run policy; empty ones are left to Settings; bad ones are named', () => {
    const input = draftToStartInput(
      draft({
        limits: { budgetUsd: '$5', maxDuration: '6h', idleTimeout: 'none', unreachableGrace: '' },
      }),
    );
    expect(input.policy).toEqual({
      budgetUsd: 5,
      maxDurationMs: 21_600_000,
      idleTimeoutMs: null,
      afterJob: 'destroy',
    });
    expect(
      draftProblems(
        draft({
          limits: {
            budgetUsd: 'five',
            maxDuration: '6 hours',
            idleTimeout: '',
            unreachableGrace: 'none',
          },
        }),
      ).limits,
    ).toBeDefined();
  });
});

describe('the Sweep field', () => {
  it('becomes job.sweep: its axes in order, cells from a loaded file after them', () => {
    const input = draftToStartInput(
      draft({ sweep: 'LR = 1e-4, 3e-4\nSEED = 1, 2, 3', sweepCells: [{ LR: '1' }], count: 2 }),
    );
    expect(input.job.sweep).toEqual({
      axes: { LR: ['1e-4', '3e-4'], SEED: ['1', '2', '3'] },
      cells: [{ LR: '1' }],
    });
    expect(Object.keys(input.job.sweep!.axes)).toEqual(['LR', 'SEED']);
    expect(JobSpec.parse(input.job).sweep).toEqual(input.job.sweep);
    expect(draftToStartInput(draft({ sweep: ' \n' })).job.sweep).toBeUndefined();
    expect(draftToStartInput(draft({ cache: true })).job.cache).toBe(true);
  });

  it('a line that is no axis, or a sweep too big, is a problem of the field', () => {
    expect(draftProblems(draft({ sweep: 'LR = 1\nl-r = 2' })).sweep).toMatch(
      /^Line 2: l-r is not a param name/,
    );
    expect(draftProblems(draft({ sweep: 'LR = 1,,2' })).sweep).toMatch(/empty value/);
    const big = Array.from({ length: 101 }, (_, i) => i).join(', ');
    expect(draftProblems(draft({ sweep: `A = ${big}\nB = ${big}` })).sweep).toMatch(
      /more than 10,000/,
    );
    expect(draftProblems(draft({ sweep: 'LR = 1, 2' })).sweep).toBeUndefined();
  });
});

describe('distributed and ports', () => {
  it('a distributed draft sends distributed, its stop rule and master port; others none', () => {
    const plain = draftToStartInput(draft({ count: 2, stop: 'rank0', masterPort: '1234' })).job;
    expect(plain).not.toHaveProperty('distributed');
    expect(plain).not.toHaveProperty('stop');
    expect(plain).not.toHaveProperty('master_port');
    const job = draftToStartInput(
      draft({ count: 2, distributed: true, stop: 'rank0', masterPort: ' 29600 ' }),
    ).job;
    expect(job).toMatchObject({ distributed: true, stop: 'rank0', master_port: 29600 });
    // An empty master port is the default.
    const dflt = draftToStartInput(draft({ count: 2, distributed: true, masterPort: '' })).job;
    expect(JobSpec.parse(dflt)).toMatchObject({
      distributed: true,
      stop: 'all',
      master_port: 29500,
    });
  });

  it('the Ports field becomes job.ports (numbers and pairs); remote_ports go as they came', () => {
    const job = draftToStartInput(
      draft({ ports: ' 6006, 8888 : 18888 ,', remotePorts: ['5000:localhost:5000'] }),
    ).job;
    expect(job.ports).toEqual([6006, '8888:18888']);
    expect(job.remote_ports).toEqual(['5000:localhost:5000']);
    expect(JobSpec.parse(job).ports).toEqual([6006, '8888:18888']);
    const none = draftToStartInput(draft({})).job;
    expect(none).not.toHaveProperty('ports');
    expect(none).not.toHaveProperty('remote_ports');
  });

  it('what the job file loader refuses is a problem of the field', () => {
    expect(draftProblems(draft({ distributed: true, count: 1 })).distributed).toBe(
      'A distributed job needs 2 nodes or more',
    );
    expect(
      draftProblems(draft({ distributed: true, count: 2, sweep: 'LR = 1, 2' })).distributed,
    ).toBe('A distributed job cannot also be a sweep');
    expect(
      draftProblems(draft({ distributed: true, count: 2, sweepCells: [{ LR: '1' }] })).distributed,
    ).toBe('A distributed job cannot also be a sweep');
    expect(draftProblems(draft({ distributed: true, count: 2, cache: true })).distributed).toMatch(
      /cannot reuse completed outputs/,
    );
    expect(
      draftProblems(draft({ distributed: true, count: 2, masterPort: '70000' })).distributed,
    ).toBe('The master port is a number from 1 to 65535');
    // Not distributed: a master port typed earlier does not matter.
    expect(draftProblems(draft({ count: 2, masterPort: 'x' }))).toEqual({});
    expect(draftProblems(draft({ distributed: true, count: 2 }))).toEqual({});
    // ssh: one rank per host picked.
    expect(
      draftProblems(draft({ provider: 'ssh', hosts: ['a'], distributed: true })).distributed,
    ).toMatch(/needs 2 nodes/);
    expect(draftProblems(draft({ ports: '6006, 0' })).ports).toMatch(/"0" is not a port/);
  });
});

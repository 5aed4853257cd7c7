import { describe, expect, it } from 'vitest';
import { JobSpec, PoolSpec } from '../../../src-main/contract';
import { draftToStartInput } from './draft-to-run';
import type { ComposerDraft } from '../../store/ui';
import { loadedToDraft, type LoadedJob } from './job-to-draft';

const loaded = (job: object, pool: object = {}, policy: LoadedJob['policy'] = {}): LoadedJob => ({
  job: JobSpec.parse({ name: 'hello', run: 'sh run.sh', ...job }),
  pool: PoolSpec.parse(pool),
  policy,
  file: '/w/tender.toml',
});

describe('loadedToDraft', () => {
  it('fills every field; from_env secrets stay references without a value', () => {
    const { draft, notes } = loadedToDraft(
      loaded(
        {
          setup: 'mkdir -p out',
          setup_fingerprint: ['requirements.txt', 'env/extra.txt'],
          workspace: { workdir: '/w', exclude: ['/data', '*.ckpt'] },
          outputs: ['out/metrics.json', 'out/loss.csv'],
          env: {
            SEED: '1',
            WANDB: { secret: true, value: 'typed-in-the-file' },
            HF_TOKEN: { secret: true, fromEnv: 'HF' },
          },
          params: { STEPS: '3000' },
        },
        {
          provider: 'vastai',
          count: 2,
          gpu: 'RTX 4090',
          max_price: 0.5,
          image: 'img:1',
          verify: ['nvidia-smi'],
          interruptible: true,
          bid: 0.22,
          pull_stall: '15m',
        },
      ),
    );
    expect(notes).toEqual([]);
    expect(draft).toEqual({
      name: 'hello',
      workdir: '/w',
      exclude: ['/data', '*.ckpt'],
      setup: 'mkdir -p out',
      setupFingerprint: 'requirements.txt\nenv/extra.txt',
      setupCache: true,
      freshSetup: false,
      run: 'sh run.sh',
      outputs: 'out/metrics.json\nout/loss.csv',
      env: [
        { key: 'SEED', value: '1', secret: false },
        { key: 'WANDB', value: 'typed-in-the-file', secret: true },
        { key: 'HF_TOKEN', value: '', secret: true, fromEnv: 'HF' },
      ],
      params: [{ key: 'STEPS', value: '3000' }],
      sweep: '',
      sweepCells: [],
      cache: false,
      distributed: false,
      stop: 'all',
      masterPort: '29500',
      ports: '',
      remotePorts: [],
      provider: 'vastai',
      chain: ['runpod', 'vastai'],
      count: 2,
      hosts: [],
      slurm: { cluster: '', partition: '', account: '', qos: '', gpus: 0 },
      offers: [],
      offerFilter: { gpu: 'RTX 4090', maxPrice: 0.5 },
      verify: ['nvidia-smi'],
      constraints: '',
      image: 'img:1',
      pullStall: '15m',
      imageLogin: { username: '', passwordEnv: '', password: '', server: '' },
      interruptible: true,
      bid: '0.22',
      keep: false,
      newNode: false,
      limits: { budgetUsd: '', maxDuration: '', idleTimeout: '', unreachableGrace: '' },
      source: '/w/tender.toml',
    });
  });

  it('carries the lease policy as the limits the composer shows', () => {
    const { draft } = loadedToDraft(
      loaded(
        {},
        {},
        {
          budgetUsd: 12.5,
          maxDurationMs: 5_400_000,
          idleTimeoutMs: null,
          afterJob: 'keep_warm',
        },
      ),
    );
    expect(draft.limits).toEqual({
      budgetUsd: '12.5',
      maxDuration: '1h30m',
      idleTimeout: 'none',
      unreachableGrace: '',
    });
    expect(draft.keep).toBe(true);
    expect(draftToStartInput(draft).policy).toEqual({
      budgetUsd: 12.5,
      maxDurationMs: 5_400_000,
      idleTimeoutMs: null,
      afterJob: 'keep_warm',
    });
  });

  it('round-trips: a loaded file sent back is the same job and pool', () => {
    const file = loaded(
      {
        workspace: { workdir: '/w', exclude: ['/data'] },
        outputs: ['out/'],
        env: { A: '1', S: { secret: true, fromEnv: 'S_VAR' } },
        params: { LR: '3e-4' },
      },
      { provider: 'ssh', hosts: ['lab1', 'lab2'], count: 2 },
    );
    const input = draftToStartInput(loadedToDraft(file).draft);
    expect(input.policy).toEqual({ afterJob: 'destroy' });
    expect(JobSpec.parse(input.job)).toEqual(file.job);
    expect(PoolSpec.parse(input.pool)).toEqual(file.pool);
  });

  it('fills the Sweep field from [sweep] (explicit cells and cache carried), and sends it back', () => {
    const file = loaded({
      params: { E: '3' },
      sweep: { axes: { LR: ['1e-4', '3e-4'], NOTE: ['a, b'] }, cells: [{ LR: '1e-2' }] },
      cache: true,
    });
    const { draft, notes } = loadedToDraft(file);
    expect(notes).toEqual([]);
    expect(draft.sweep).toBe('LR = 1e-4, 3e-4\nNOTE = "a, b"');
    expect(draft.sweepCells).toEqual([{ LR: '1e-2' }]);
    expect(draft.cache).toBe(true);
    expect(JobSpec.parse(draftToStartInput(draft).job)).toEqual(file.job);
  });

  it('fills the distributed fields and the ports; remote_ports are carried; all sent back', () => {
    const file = loaded(
      {
        distributed: true,
        stop: 'rank0',
        master_port: 29600,
        ports: [6006, '8888:18888'],
        remote_ports: ['5000:localhost:5000'],
      },
      { count: 3 },
    );
    const { draft, notes } = loadedToDraft(file);
    expect(notes).toEqual([]);
    expect(draft).toMatchObject({
      distributed: true,
      stop: 'rank0',
      masterPort: '29600',
      ports: '6006, 8888:18888',
      remotePorts: ['5000:localhost:5000'],
      count: 3,
    });
    expect(JobSpec.parse(draftToStartInput(draft).job)).toEqual(file.job);
  });

  it('a stop rule or master port without distributed is named, and kept for the checkbox', () => {
    const { draft, notes } = loadedToDraft(loaded({ master_port: 12345 }));
    expect(draft.distributed).toBe(false);
    expect(draft.masterPort).toBe('12345');
    expect(notes).toEqual([expect.stringMatching(/master_port without distributed = true/)]);
    expect(draftToStartInput(draft).job).not.toHaveProperty('master_port');
    expect(draftToStartInput({ ...draft, distributed: true }).job.master_port).toBe(12345);
  });

  it('fills the Slurm pool from [pool] and sends the same pool back', () => {
    const file = loaded(
      {},
      {
        provider: 'slurm',
        cluster: 'lab',
        partition: 'gpu',
        account: 'ml',
        qos: 'normal',
        gpu_count: 2,
        count: 3,
        verify: ['nvidia-smi'],
      },
    );
    const { draft, notes } = loadedToDraft(file);
    expect(notes).toEqual([]);
    expect(draft.provider).toBe('slurm');
    expect(draft.count).toBe(3);
    expect(draft.slurm).toEqual({
      cluster: 'lab',
      partition: 'gpu',
      account: 'ml',
      qos: 'normal',
      gpus: 2,
    });
    expect(PoolSpec.parse(draftToStartInput(draft).pool)).toEqual(file.pool);
  });

  it('a Slurm pool with only a cluster sends only the cluster: its defaults apply', () => {
    const file = loaded({}, { provider: 'slurm', cluster: 'lab' });
    const { draft } = loadedToDraft(file);
    expect(draft.slurm).toEqual({ cluster: 'lab', partition: '', account: '', qos: '', gpus: 0 });
    const pool = draftToStartInput(draft).pool;
    expect(pool).toEqual({ provider: 'slurm', count: 1, verify: [], cluster: 'lab' });
    expect(PoolSpec.parse(pool)).toEqual(file.pool);
  });

  it('names the marketplace fields a Slurm file sets, which are not sent', () => {
    const { draft, notes } = loadedToDraft(
      loaded({}, { provider: 'slurm', cluster: 'lab', image: 'img:1', max_price: 1 }),
    );
    expect(notes).toEqual([expect.stringMatching(/sets max_price, image for a Slurm pool/)]);
    const pool = draftToStartInput(draft).pool;
    expect(pool).not.toHaveProperty('image');
    expect(pool).not.toHaveProperty('max_price');
  });

  it('says what it could not carry', () => {
    const { draft, notes } = loadedToDraft(loaded({}, { provider: 'vastai', offers: ['123'] }));
    expect(draft.offers).toEqual([]);
    expect(notes[0]).toMatch(/offers 123/);
  });
});

describe('a pool of several marketplaces', () => {
  it.each<[string, object, Partial<ComposerDraft>, string]>([
    [
      'provider = ["runpod", "vastai"]: tried in order',
      { provider: ['runpod', 'vastai'] },
      { provider: 'chain', chain: ['runpod', 'vastai'] },
      'runpod,vastai',
    ],
    [
      'provider = "lambda,runpod,vastai"',
      { provider: 'lambda,runpod,vastai' },
      { provider: 'chain', chain: ['lambda', 'runpod', 'vastai'] },
      'lambda,runpod,vastai',
    ],
    ['provider = "cheapest"', { provider: 'cheapest' }, { provider: 'cheapest' }, 'cheapest'],
    ['provider = "runpod"', { provider: 'runpod' }, { provider: 'runpod' }, 'runpod'],
    ['provider = "lambda"', { provider: 'lambda' }, { provider: 'lambda' }, 'lambda'],
  ])('%s round-trips', (_, poolIn, want, sent) => {
    const file = loaded(
      {},
      { count: 2, gpu: 'A100', max_price: 2, image: 'img:1', pull_stall: '20m', ...poolIn },
    );
    expect(file.pool.provider).toBe(sent); // what job.load hands over
    const { draft, notes } = loadedToDraft(file);
    expect(notes).toEqual([]);
    expect(draft).toMatchObject({ ...want, count: 2, offerFilter: { gpu: 'A100', maxPrice: 2 } });
    const pool = draftToStartInput(draft).pool;
    expect(pool.provider).toBe(sent);
    expect(PoolSpec.parse(pool)).toEqual(file.pool);
  });

  it('an interruptible pool round-trips on RunPod and in a chain', () => {
    for (const provider of ['runpod', 'runpod,vastai']) {
      const file = loaded({}, { provider, interruptible: true, bid: 0.3 });
      const { draft, notes } = loadedToDraft(file);
      expect(notes).toEqual([]);
      expect(PoolSpec.parse(draftToStartInput(draft).pool)).toEqual(file.pool);
    }
  });

  it('Lambda Cloud sells no interruptible machines: named, and not sent', () => {
    const { draft, notes } = loadedToDraft(loaded({}, { provider: 'lambda', interruptible: true }));
    expect(notes).toEqual([expect.stringMatching(/Lambda Cloud sells none/)]);
    expect(draft.interruptible).toBe(false);
    expect(draftToStartInput(draft).pool).not.toHaveProperty('interruptible');
  });

  it.each([['runpod,ssh'], ['runpod,runpod'], ['nimbus']])(
    'a provider "%s" the composer cannot offer is named; local is used',
    (provider) => {
      const { draft, notes } = loadedToDraft(loaded({}, { provider }));
      expect(draft.provider).toBe('local');
      expect(notes[0]).toMatch(/is not offered here; using local/);
    },
  );
});

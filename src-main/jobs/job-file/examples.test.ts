import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadJobFile } from './job-file';
import { scanWorkspace } from '../workspace/scan';

// The shipped examples are the first thing a person runs; keep them loadable.
const EXAMPLES = path.resolve(import.meta.dirname, '../../../resources/examples');
const opts = { knownProviders: ['local'], env: {} };

describe('shipped examples', () => {
  test('hello loads, and its push leaves data/ and the checkpoint behind', async () => {
    const { job } = loadJobFile(path.join(EXAMPLES, 'hello'), opts);
    expect(job).toMatchObject({ name: 'hello', run: 'sh run.sh' });
    expect(job.outputs).toEqual(['out/metrics.json', 'out/loss.csv']);
    const scan = await scanWorkspace(job.workspace!.workdir, job.workspace!.exclude);
    expect(scan.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['run.sh', 'hello.py', 'hello.mjs', 'tender.toml', '.gitignore']),
    );
    expect(scan.excluded).toEqual(
      expect.arrayContaining([
        { path: 'data/', reason: 'exclude', rule: '/data', source: 'exclude' },
        { path: 'last.ckpt', reason: 'exclude', rule: '*.ckpt', source: 'exclude' },
      ]),
    );
  });

  test('hello-fail loads and reuses the hello workspace', () => {
    const { job } = loadJobFile(path.join(EXAMPLES, 'hello-fail', 'tender.toml'), opts);
    expect(job.workspace?.workdir).toBe(path.join(EXAMPLES, 'hello'));
    expect(job.params).toEqual({ FAIL_AT_STEP: '1200' });
  });
});

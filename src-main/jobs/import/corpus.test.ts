// Every file of the import corpus (test/fixtures/imports/{skypilot,dstack}, real files with
// a `# source:` first line) converted, kept as a snapshot: the job file (or the refusal)
// and the explain table. A job file written must also load through parseJobToml.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJobToml } from '../job-file/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { convertTask, refusalError } from './convert';
import { explainTable } from './explain';

const CORPUS = path.resolve(import.meta.dirname, '../../../test/fixtures/imports');
const OWN = path.resolve(import.meta.dirname, 'fixtures');
const files = (['skypilot', 'dstack'] as const).flatMap((tool) => {
  const dir = existsSync(path.join(CORPUS, tool)) ? path.join(CORPUS, tool) : path.join(OWN, tool);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
        .map((f) => ({ tool, dir, f }))
    : [];
});
const scratch = mkdtempSync(path.join(tmpdir(), 'tender-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Fixed folders: the snapshots must not depend on where the test runs.
const CTX = {
  yamlDir: '/project',
  cwd: '/project',
  home: '/home/user',
  outDir: '/project',
  env: {},
};

describe('the import corpus', () => {
  it('has files', () => expect(files.length).toBeGreaterThan(0));

  it.each(files)('$tool/$f', async ({ tool, dir, f }) => {
    const text = readFileSync(path.join(dir, f), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# source: /);
    let body: string;
    try {
      const c = convertTask(text, { ...CTX, file: f });
      expect(c.tool).toBe(tool);
      if (c.toml !== null) {
        // The workspace folder is checked by the loader; everything else is checked here.
        const toml = c.toml.replace(/^workspace = .*$/m, '');
        const placeholders = Object.fromEntries(c.secretNames.map((n) => [n, 'x']));
        parseJobToml(toml, {
          file: f,
          baseDir: scratch,
          knownProviders: KNOWN_PROVIDERS,
          env: placeholders,
        });
      }
      const head =
        c.toml ?? `REFUSED: ${refusalError(c, f).message}\nfix: ${refusalError(c, f).hint}\n`;
      body = `${head}\n--- explain ---\n${explainTable(c.outcomes)}`;
    } catch (err) {
      body = `BAD INPUT: ${(err as Error).message}\n`;
    }
    await expect(body).toMatchFileSnapshot(`__snapshots__/${tool}/${f}.txt`);
  });
});

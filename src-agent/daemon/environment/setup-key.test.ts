import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envFingerprint } from './setup-env';
import { defaultKeyFiles, describeKey, MAX_NAMED_FILE_BYTES, namedFiles } from './setup-key';

let root: string;
let ws: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tender-setup-key-'));
  ws = join(root, 'ws');
  mkdirSync(ws);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Writes each file (a path ending in / is a folder) into the workspace. */
function tree(paths: string[]): void {
  for (const p of paths) {
    if (p.endsWith('/')) mkdirSync(join(ws, p), { recursive: true });
    else {
      mkdirSync(join(ws, p, '..'), { recursive: true });
      writeFileSync(join(ws, p), `${p}\n`);
    }
  }
}

const PIP = 'python -m venv $TENDER_ENV && pip install -r requirements.txt';

describe('defaultKeyFiles: which workspace files key a setup without setup_fingerprint', () => {
  // [what, workspace files, setup command, expected key files]
  // prettier-ignore
  const cases: [string, string[], string, string[]][] = [
    ['the README line on a pip repository', ['requirements.txt', 'train.py', 'model/net.py'], PIP, ['requirements.txt']],
    ['every usual dependency file at the top, sorted', ['uv.lock', 'pyproject.toml', 'setup.py', 'setup.cfg', 'poetry.lock', 'Pipfile', 'Pipfile.lock', 'environment.yml', 'conda-lock.yml', 'pdm.lock', 'train.py'], 'make env', ['Pipfile', 'Pipfile.lock', 'conda-lock.yml', 'environment.yml', 'pdm.lock', 'poetry.lock', 'pyproject.toml', 'setup.cfg', 'setup.py', 'uv.lock']],
    ['requirements variants and constraints', ['requirements-dev.txt', 'requirements.gpu.txt', 'requirements_test.txt', 'constraints.txt', 'requirements.in'], 'pip install .', ['constraints.txt', 'requirements-dev.txt', 'requirements.gpu.txt', 'requirements_test.txt']],
    ['a requirements/ folder', ['requirements/base.txt', 'requirements/gpu.txt', 'requirements/README.md'], 'pip install -r requirements/gpu.txt', ['requirements/base.txt', 'requirements/gpu.txt']],
    ['dependency names deeper down are not the repository\'s', ['sub/requirements.txt', 'third_party/lib/setup.py'], 'pip install -e .', []],
    ['none: the command alone', ['train.py', 'data/x.csv'], 'pip install torch==2.4', []],
    ['no workspace at all', [], 'echo hi', []],
    ['a file the command names', ['env/gpu.txt', 'train.py'], 'pip install -r env/gpu.txt', ['env/gpu.txt']],
    ['a script the command runs, beside the usual files', ['scripts/install.sh', 'pyproject.toml'], 'bash scripts/install.sh && pip install -e .', ['pyproject.toml', 'scripts/install.sh']],
    ['a file named by --opt=path and in quotes', ['c.txt', 'r 1.txt'], 'pip install --constraint=c.txt -r "r 1.txt"', ['c.txt']],
    ['named twice or also usual: once', ['requirements.txt'], 'pip install -r requirements.txt -r ./requirements.txt', ['requirements.txt']],
    ['a folder named by the command is not a file', ['src/a.py'], 'pip install -e src', []],
    ['a folder called like a dependency file is not one', ['setup.py/', 'requirements.txt/'], 'pip install .', []],
  ];
  it.each(cases)('%s', (_what, files, command, expected) => {
    tree(files);
    expect(defaultKeyFiles(command, files.length ? ws : join(root, 'none'))).toEqual(expected);
  });

  it('leaves out a symbolic link named like a dependency file', () => {
    writeFileSync(join(root, 'outside.txt'), 'x');
    symlinkSync(join(root, 'outside.txt'), join(ws, 'requirements.txt'));
    expect(defaultKeyFiles('pip install .', ws)).toEqual([]);
  });
});

describe('namedFiles: words of the setup command that are workspace files', () => {
  // [what, command, expected] over a workspace holding a.txt, d/b.txt and big.bin
  // prettier-ignore
  const cases: [string, string, string[]][] = [
    ['plain and nested paths', 'cat a.txt d/b.txt', ['a.txt', 'd/b.txt']],
    ['after shell operators', 'x;cat a.txt|wc&&(cat d/b.txt)>o', ['a.txt', 'd/b.txt']],
    ['a variable, a glob, an option are not paths', 'cat $F *.txt -a.txt ~/a.txt', []],
    ['outside the workspace', 'cat ../ws/a.txt /etc/passwd ../outside.txt', []],
    ['a file over the size limit (data, not a dependency list)', 'tar xf big.bin', []],
    ['a path that comes back inside after normalising', 'cat d/../a.txt', ['a.txt']],
  ];
  it.each(cases)('%s', (_what, command, expected) => {
    tree(['a.txt', 'd/b.txt']);
    writeFileSync(join(root, 'outside.txt'), 'x');
    writeFileSync(join(ws, 'big.bin'), Buffer.alloc(MAX_NAMED_FILE_BYTES + 1));
    expect(namedFiles(command, ws)).toEqual(expected);
  });
});

describe('the default key', () => {
  const key = () => envFingerprint(PIP, defaultKeyFiles(PIP, ws), ws);

  // [what changes, how]
  const changes: [string, () => void][] = [
    ['requirements.txt edited', () => writeFileSync(join(ws, 'requirements.txt'), 'numpy==2\n')],
    ['a dependency file added', () => writeFileSync(join(ws, 'pyproject.toml'), '[project]\n')],
    ['a dependency file removed', () => rmSync(join(ws, 'setup.cfg'))],
  ];
  it.each(changes)('changes when %s', (_what, change) => {
    tree(['requirements.txt', 'setup.cfg', 'train.py']);
    const before = key();
    change();
    expect(key()).not.toBe(before);
  });

  it('stays when the code being iterated on changes', () => {
    tree(['requirements.txt', 'train.py', 'model/net.py']);
    const before = key();
    writeFileSync(join(ws, 'train.py'), 'lr = 1\n');
    writeFileSync(join(ws, 'model', 'extra.py'), 'x = 1\n');
    expect(key()).toBe(before);
  });

  it('is the key of the same files named in setup_fingerprint (one key, two ways)', () => {
    tree(['requirements.txt']);
    expect(key()).toBe(envFingerprint(PIP, ['requirements.txt'], ws));
  });

  it('changes with the image, and without one is the key it always was', () => {
    tree(['requirements.txt']);
    const files = ['requirements.txt'];
    const plain = envFingerprint(PIP, files, ws);
    expect(envFingerprint(PIP, files, ws, undefined)).toBe(plain);
    const a = envFingerprint(PIP, files, ws, 'pytorch/pytorch:2.4.0-cuda12.4');
    const b = envFingerprint(PIP, files, ws, 'pytorch/pytorch:2.5.0-cuda12.4');
    expect(new Set([plain, a, b]).size).toBe(3);
  });
});

describe('describeKey: what the log says the key covered', () => {
  // prettier-ignore
  const cases: [string, string, string[], string | undefined, string][] = [
    ['a command and a file', 'pip install -r requirements.txt', ['requirements.txt'], undefined, '`pip install -r requirements.txt` + requirements.txt'],
    ['no files', 'pip install torch', [], undefined, '`pip install torch`'],
    ['files and an image', 'make', ['a.txt', 'b.txt'], 'img:1', '`make` + a.txt, b.txt + image img:1'],
    ['a multi-line command: its first line', 'set -e\npip install .', [], undefined, '`set -e …`'],
    ['a long command, cut', 'x'.repeat(100), [], undefined, `\`${'x'.repeat(79)}…\``],
  ];
  it.each(cases)('%s', (_what, command, files, image, expected) => {
    expect(describeKey(command, files, image)).toBe(expected);
  });
});

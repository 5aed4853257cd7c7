import { describe, expect, it } from 'vitest';
import { readEnvFlags } from './env-flags';
import { parseSecretFile, readSecretFlags } from './secret-input';

const FILES: Record<string, string> = {
  '/s/token': 'hf_from_file\n',
  '/s/crlf': 'v\r\n',
  '/s/empty': '\n',
  '/s/dotenv': '# keys\nexport HF_TOKEN=hf_a\n\nWANDB_API_KEY = "w b"\nOTHER=\'q\'\n',
};
const readFile = (p: string) => {
  const text = FILES[p];
  if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
  return text;
};
const env = { HF_TOKEN: 'hf_from_env', EMPTY: '' };

describe('readSecretFlags', () => {
  it.each([
    ['NAME takes $NAME', ['HF_TOKEN'], [], { HF_TOKEN: 'hf_from_env' }],
    ['NAME=@path: the file, one newline dropped', ['T=@/s/token'], [], { T: 'hf_from_file' }],
    ['a CRLF line end dropped too', ['T=@/s/crlf'], [], { T: 'v' }],
    [
      '--secret-file lines',
      [],
      ['/s/dotenv'],
      { HF_TOKEN: 'hf_a', WANDB_API_KEY: 'w b', OTHER: 'q' },
    ],
    [
      'a flag after the file wins',
      ['HF_TOKEN'],
      ['/s/dotenv'],
      { HF_TOKEN: 'hf_from_env', WANDB_API_KEY: 'w b', OTHER: 'q' },
    ],
  ])('%s', async (_what, flags, files, want) => {
    expect(await readSecretFlags(flags, files, { env, readFile })).toEqual(want);
  });

  it.each([
    ['a value on the command line', ['HF_TOKEN=hf_in_argv'], /readable by every process/],
    ['an empty value on the command line', ['HF_TOKEN='], /readable by every process/],
    ['an unset variable without a terminal', ['MISSING'], /\$MISSING is not set/],
    ['an empty variable without a terminal', ['EMPTY'], /\$EMPTY is not set/],
    ['a file that is not there', ['T=@/s/none'], /cannot read the secret file \/s\/none: ENOENT/],
    ['an empty file', ['T=@/s/empty'], /the file is empty/],
    ['no file named', ['T=@'], /names no file/],
    ['a bad name', ['9X'], /not a valid variable name/],
    ['a reserved name', ['TENDER_X'], /reserved/],
  ])('refuses %s', async (_what, flags, message) => {
    const err = await readSecretFlags(flags, [], { env, readFile }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad_input', message: expect.stringMatching(message) });
    expect(JSON.stringify(err)).not.toContain('hf_in_argv');
  });

  it('names every way out when a value is on the command line', async () => {
    const err = (await readSecretFlags(['HF_TOKEN=x'], [], { env }).catch((e: unknown) => e)) as {
      hint: string;
    };
    expect(err.hint).toContain('--secret HF_TOKEN reads $HF_TOKEN');
    expect(err.hint).toContain('--secret HF_TOKEN=@path');
    expect(err.hint).toContain('--secret-file FILE');
    expect(err.hint).toContain('to be asked');
  });

  it('asks on the terminal when the variable is unset, and only then', async () => {
    const asked: string[] = [];
    const prompt = async (name: string) => (asked.push(name), 'typed');
    expect(await readSecretFlags(['HF_TOKEN', 'NEW'], [], { env, prompt })).toEqual({
      HF_TOKEN: 'hf_from_env',
      NEW: 'typed',
    });
    expect(asked).toEqual(['NEW']);
  });
});

describe('parseSecretFile', () => {
  it('names a bad line by its number, never its text', () => {
    expect(() => parseSecretFile('A=1\nhf_secret_without_name\n', 'f.env')).toThrow(
      /^f\.env:2: not a NAME=VALUE line$/,
    );
  });
});

describe('readEnvFlags', () => {
  it.each([
    ['NAME=VALUE', ['SEED=1'], { SEED: '1' }],
    ['a value holding =', ['A=x=y'], { A: 'x=y' }],
    ['an empty value', ['A='], { A: '' }],
    ['NAME alone: $NAME', ['HF_TOKEN'], { HF_TOKEN: 'hf_from_env' }],
    ['a later one wins', ['A=1', 'A=2'], { A: '2' }],
  ])('%s', (_what, flags, want) => {
    expect(readEnvFlags(flags, env)).toEqual(want);
  });

  it.each([
    ['a credential-looking name with its value', ['HF_TOKEN=hf_x'], /looks like a secret/],
    ['another', ['OPENAI_API_KEY=sk'], /looks like a secret/],
    ['NAME alone, unset', ['MISSING'], /\$MISSING is not set/],
    ['no name', ['=x'], /NAME=VALUE or NAME/],
  ])('refuses %s', (_what, flags, message) => {
    expect(() => readEnvFlags(flags, env)).toThrow(message);
  });
});

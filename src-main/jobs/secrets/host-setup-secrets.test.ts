import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../contract/job';
import { checkHostSetupSecrets, hostSetupSecretEnv } from './host-setup-secrets';

const secret = (value: string) => ({ secret: true as const, value });
const entry = (secrets: string[]) => ({ script: 'login', refresh_capabilities: false, secrets });

describe('checkHostSetupSecrets', () => {
  it.each<[string, JobSpec['host_setup'], JobSpec['env'], string[]]>([
    ['a secret of the env', [entry(['HF'])], { HF: secret('hf_x') }, []],
    ['a plain script', ['apt-get install -y x'], {}, []],
    ['no secrets key', [{ script: 'x', refresh_capabilities: false }], {}, []],
    [
      'a name [job.env] lacks',
      ['true', entry(['HF'])],
      {},
      ['job.host_setup[1].secrets names HF, which [job.env] does not have'],
    ],
    [
      'a plain value',
      [entry(['HF'])],
      { HF: 'x' },
      ['job.host_setup[0].secrets names HF, which [job.env] has as a plain value'],
    ],
  ])('%s', (_, hostSetup, env, texts) => {
    const problems = checkHostSetupSecrets(hostSetup, env);
    expect(problems.map((p) => p.text)).toEqual(texts);
    for (const p of problems) expect(p.hint).toMatch(/secret = true, from_env/);
  });
});

describe('hostSetupSecretEnv', () => {
  const job = (env: JobSpec['env'], hostSetup: JobSpec['host_setup']) =>
    ({ env, host_setup: hostSetup }) as JobSpec;
  it.each<[string, JobSpec, Record<string, string> | undefined]>([
    [
      'the named values only',
      job({ HF: secret('v1'), OTHER: secret('v2') }, [entry(['HF'])]),
      { HF: 'v1' },
    ],
    ['none named', job({ HF: secret('v1') }, ['true']), undefined],
    ['held only redacted (resumed)', job({ HF: secret('***') }, [entry(['HF'])]), undefined],
  ])('%s', (_, j, expected) => {
    expect(hostSetupSecretEnv(j)).toEqual(expected);
  });
});

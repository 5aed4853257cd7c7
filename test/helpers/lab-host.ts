import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { runCli, type tempHome } from './cli';
import { startSshd, type SshdFixture } from './sshd';

/** `labHost()`: a real sshd host registered as `lab` (`tender hosts add`) in a fresh data
 *  folder from `newHome` (useTempHomes); every sshd is stopped after each test. */
export function useLabHosts(newHome: () => ReturnType<typeof tempHome>) {
  const fixtures: SshdFixture[] = [];
  afterEach(async () => {
    for (const f of fixtures.splice(0)) await f.stop();
  });
  return async function labHost() {
    const f = await startSshd();
    fixtures.push(f);
    const { home, root } = newHome();
    const key = join(root, 'id_lab');
    writeFileSync(key, f.clientKey.privateKey);
    chmodSync(key, 0o600);
    const add = await runCli(
      ['hosts', 'add', 'lab', `${f.user}@127.0.0.1:${f.port}`, '--identity-file', key],
      { home },
    );
    expect(add.code, add.stderr).toBe(0);
    return { f, home, root, key };
  };
}

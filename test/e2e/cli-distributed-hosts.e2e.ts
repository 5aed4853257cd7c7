// `tender run job.toml --hosts h1,h2` with `distributed = true` in a job file that says
// nothing of count: `--hosts a,b` is a pool of two for every check, the job file loader's
// included, so the gang runs on both hosts (two real sshd, each on its own loopback address),
// each dialed once while the run's core opens.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';
import { freePort } from '../helpers/free-port';
import { startSshd, type SshdFixture } from '../helpers/sshd';

const newHome = useTempHomes();
const fixtures: SshdFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.stop();
});

// Rank 0 waits for the other rank's hello on MASTER_PORT: it succeeds only as a gang.
const GANG_PY = `
import os, socket, time
rank = int(os.environ["TENDER_NODE_RANK"]); n = int(os.environ["TENDER_NUM_NODES"])
port = int(os.environ["MASTER_PORT"])
if rank == 0:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port)); s.listen(1); s.settimeout(30)
    c, _ = s.accept(); print(f"rank 0 of {n} heard rank {c.recv(8).decode()}", flush=True)
else:
    for _ in range(300):
        try:
            c = socket.create_connection((os.environ["MASTER_ADDR"], port), timeout=2); break
        except OSError:
            time.sleep(0.1)
    c.sendall(str(rank).encode()); print(f"rank {rank} of {n} said hello", flush=True)
`;

/** Logins sshd accepted so far. */
const accepted = (f: SshdFixture) => (f.log().match(/Accepted publickey/g) ?? []).length;

describe('tender run --hosts h1,h2 with distributed = true', () => {
  it('is a pool of two: the gang runs, one rank per host', async () => {
    const { home, root } = newHome();
    for (const [i, name] of ['h1', 'h2'].entries()) {
      const f = await startSshd({ address: `127.0.0.${i + 2}` });
      fixtures.push(f);
      const key = join(root, `id_${name}`);
      writeFileSync(key, f.clientKey.privateKey);
      chmodSync(key, 0o600);
      const add = await runCli(
        ['hosts', 'add', name, `${f.user}@127.0.0.${i + 2}:${f.port}`, '--identity-file', key],
        { home },
      );
      expect(add.code, add.stderr).toBe(0);
    }
    const work = join(root, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'gang.py'), GANG_PY);
    // What a researcher writes first: no [pool], no count.
    writeFileSync(
      join(work, 'tender.toml'),
      `[job]\nname = "gang"\nrun = "python3 gang.py"\ndistributed = true\nmaster_port = ${await freePort()}\n`,
    );

    const before = fixtures.map(accepted);
    const run = await runCli(['run', join(work, 'tender.toml'), '--hosts', 'h1,h2'], { home });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain('rank 0 of 2 heard rank 1');
    expect(run.stdout + run.stderr).toContain('rank 1 of 2 said hello');
    // Each host is dialed while the run's core opens, and the run rides on that login: no
    // more logins than the bootstrap's and the link's (nodes/early-dials.ts).
    const logins = fixtures.map((f, i) => accepted(f) - before[i]!);
    expect(
      logins.every((n) => n >= 1 && n <= 2),
      `logins per host: ${logins}`,
    ).toBe(true);

    // One host is a pool of one: still refused, naming the fix.
    const seen = fixtures.map(accepted);
    const one = await runCli(['run', join(work, 'tender.toml'), '--hosts', 'h1'], { home });
    expect(one.code).toBe(2);
    expect(fixtures.map(accepted)).toEqual(seen); // refused before any host is dialed
    expect(one.stderr).toContain('distributed = true needs count ≥ 2 (the pool has 1 node)');
    expect(one.stderr).toContain('--hosts a,b');
  });
});

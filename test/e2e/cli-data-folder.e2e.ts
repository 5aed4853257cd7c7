// The data folder through the built CLI (issue 27): a run leaves nothing in it that group
// or others can read, and a folder someone else could write to is refused before anything
// runs, naming the folder and the fix (exit 2, bad input).
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, requireBuilt, runCli, useTempHomes } from '../helpers/cli';

beforeAll(() => requireBuilt());
const newHome = useTempHomes();

function loose(root: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${(st.mode & 0o777).toString(8)} ${path}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return out;
}

describe('tender and its data folder', () => {
  it('a run leaves a 0700 folder whose every file and folder is the user’s alone', async () => {
    const h = newHome();
    const r = await runCli(['run', join(EXAMPLES, 'hello', 'tender.toml')], { home: h.home });
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(h.home).mode & 0o777).toBe(0o700);
    expect(loose(h.home)).toEqual([]);
    expect(existsSync(join(h.home, 'ledger.sqlite'))).toBe(true);
  });

  it('refuses a folder anyone can write to, naming it and chmod 700, and writes nothing', async () => {
    const h = newHome();
    mkdirSync(h.home);
    chmodSync(h.home, 0o777);
    const r = await runCli(['run', join(EXAMPLES, 'hello', 'tender.toml')], { home: h.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the data folder ${h.home} is writable by others (mode 0777)`);
    expect(r.stderr).toContain(`chmod 700 ${h.home}`);
    expect(readdirSync(h.home)).toEqual([]);
  });

  it("refuses another user's folder for reading too (status), naming TENDER_HOME", async () => {
    const h = newHome();
    const first = await runCli(['run', join(EXAMPLES, 'hello', 'tender.toml')], { home: h.home });
    expect(first.code, first.stderr).toBe(0);
    chownSync(h.home, 65534, 65534);
    const r = await runCli(['status'], { home: h.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the data folder ${h.home} belongs to another user (uid 65534)`);
    expect(r.stderr).toMatch(/choose a folder of your own with TENDER_HOME/);
  });
});

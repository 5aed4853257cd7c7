import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execCapture } from '../transport/exec-helpers';
import { connectorFor, type SshConnectContext } from './ssh-connect';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A local node's ssh context is never used: it has no SSH. */
const NO_SSH = {} as SshConnectContext;

describe('connecting to a local node', () => {
  it('runs commands in its folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tender-local-connect-'));
    roots.push(root);
    const dir = join(root, 'tender-x-r-1-node-0');
    mkdirSync(dir);
    const shell = await connectorFor(
      NO_SSH,
      { kind: 'local', dir },
      1_000,
    )(AbortSignal.timeout(1_000));
    const r = await execCapture(shell, 'pwd');
    expect(r.stdout.trim()).toBe(dir);
  });

  it('fails once its folder is gone, and never makes it again (that would be an orphan)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tender-local-connect-'));
    roots.push(root);
    const dir = join(root, 'tender-x-r-1-node-0');
    const connect = connectorFor(NO_SSH, { kind: 'local', dir }, 1_000);
    await expect(connect(AbortSignal.timeout(1_000))).rejects.toThrow(
      /folder .* is gone: its lease was destroyed/,
    );
    expect(existsSync(dir)).toBe(false);
  });
});

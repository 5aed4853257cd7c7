import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  failedHostsPath,
  failedMachineIds,
  readFailedHosts,
  recordFailedHost,
} from './failed-hosts';

let home: string;
let file: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tender-vast-failed-'));
  file = failedHostsPath(join(home, 'nested'));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('failed hosts file', () => {
  test('lives in TENDER_HOME', () => {
    expect(failedHostsPath('/h')).toBe('/h/vastai-failed-hosts.json');
  });

  test('a missing file is an empty list', () => {
    expect(readFailedHosts(file)).toEqual([]);
    expect(failedMachineIds(file)).toEqual(new Set());
  });

  test('records hosts with time and reason, newest first, and refreshes a host', () => {
    recordFailedHost(file, '30001', 'the instance is exited', 1000);
    recordFailedHost(file, '30002', 'no SSH within 10 min', 2000);
    recordFailedHost(file, '30001', 'OCI runtime\n create failed', 3000);

    expect(readFailedHosts(file)).toEqual([
      { machineId: '30001', at: 3000, reason: 'OCI runtime create failed' },
      { machineId: '30002', at: 2000, reason: 'no SSH within 10 min' },
    ]);
    expect(failedMachineIds(file)).toEqual(new Set(['30001', '30002']));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1 });
  });

  test('a long reason is cut', () => {
    recordFailedHost(file, '1', 'x'.repeat(1000), 1);

    expect(readFailedHosts(file)[0]!.reason).toHaveLength(300);
  });

  test('a damaged file reads as empty and is replaced by the next record', () => {
    recordFailedHost(file, '5', 'first', 1);
    writeFileSync(file, '{"version": 1, "hosts": {"5": {"at"');

    expect(readFailedHosts(file)).toEqual([]);

    recordFailedHost(file, '6', 'second', 2);
    expect(readFailedHosts(file).map((h) => h.machineId)).toEqual(['6']);
  });

  test('entries that are not machine ids are ignored', () => {
    writeFileSync(
      file.replace('nested/', ''),
      JSON.stringify({
        version: 1,
        hosts: { abc: { at: 1, reason: '' }, '7': { at: 'x' }, '8': { at: 2 } },
      }),
    );

    expect(readFailedHosts(file.replace('nested/', ''))).toEqual([
      { machineId: '8', at: 2, reason: '' },
    ]);
  });

  test('refuses to record something that is not a machine id', () => {
    expect(() => recordFailedHost(file, '../x', 'r')).toThrow(/machine id/);
  });
});

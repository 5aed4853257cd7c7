import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../base/event-bus';
import { bareRecordIn } from '../../nodes/node-fixtures';
import type { NodeView } from '../../contract';
import type { SshConnectContext } from '../../nodes/ssh-connect';
import { Terminals } from './terminals';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

const SIZE = { cols: 80, rows: 24, term: 'xterm-256color' };

describe('terminals on a node that goes away', () => {
  it('closes a shell when its node is destroyed, and opens none on a destroyed node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tender-terminals-'));
    roots.push(dir);
    const bus = new EventBus();
    const terminals = new Terminals(bus, {} as SshConnectContext);
    const exits: string[] = [];
    bus.on('terminal.exit', (e) => exits.push(e.terminalId));
    const rec = bareRecordIn('dormant', { connection: { kind: 'local', dir } });
    const id = await terminals.open(rec, SIZE);
    expect(terminals.isOpenOn(rec.id)).toBe(true);

    // Only what the terminals read of the view matters here.
    bus.emit('node.changed', { id: rec.id, stage: 'destroyed' } as NodeView);
    await expect.poll(() => exits).toEqual([id]);
    expect(terminals.isOpenOn(rec.id)).toBe(false);
    await expect(terminals.open({ ...rec, stage: 'destroyed' }, SIZE)).rejects.toThrow(
      /node-0 is destroyed: a terminal needs a running node/,
    );
  });
});

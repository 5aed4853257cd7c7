import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ForwardView, LogRecord } from '../../contract';
import type { RunRow } from '../../ledger/rows';
import { bareRecordIn } from '../../nodes/node-fixtures';
import { connectOutcome, roundTrip, tcpServer } from '../../nodes/forwards/forwards.test-util';
import { LocalShell } from '../../transport/local-shell';
import { ForwardService } from './forward-service';

const RUN = 'r-test01';
const NODE = `${RUN}/node-0`;
const TOKEN = 'f'.repeat(32);
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A service over one local node of a running run, its log, and what it told. */
function service(log: LogRecord[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'tender-fwd-svc-'));
  const node = bareRecordIn('handed_off', { connection: { kind: 'local', dir } });
  const changes: { runId: string; forwards: ForwardView[] }[] = [];
  const notes: string[] = [];
  const svc = new ForwardService({
    ledger: {
      getRun: (id) => (id === RUN ? ({ id, status: 'running' } as RunRow) : undefined),
      getNode: (id) => (id === NODE ? node : undefined),
      nodesOfRun: (id) => (id === RUN ? [node] : []),
    },
    connector: (ep) => async () => new LocalShell(ep.kind === 'local' ? ep.dir : ''),
    isDriven: () => true, // its log comes live (`feed`); the follow over the link: e2e
    readAgentLog: async (_id, fromSeq, limit) =>
      log.filter((r) => r.seq >= fromSeq).slice(0, limit),
    onChange: (runId, forwards) => changes.push({ runId, forwards }),
    note: (_id, line) => notes.push(line),
  });
  cleanups.push(() => svc.closeAll());
  return { svc, changes, notes };
}

async function echoServer() {
  const s = await tcpServer((sock) => void sock.pipe(sock));
  cleanups.push(() => s.close());
  return s;
}

describe('ForwardService (a local node)', () => {
  it("opens a job's declared forwards, names the one that cannot open, closes them all", async () => {
    const target = await echoServer();
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => busy.close(r)));
    const busyPort = (busy.address() as { port: number }).port;
    const log: LogRecord[] = [
      {
        run: RUN,
        node: NODE,
        channel: 'agent',
        source: 'run',
        stream: 'stderr',
        seq: 1,
        ts: 1,
        line: `http://127.0.0.1:${target.port}/?token=${TOKEN}`,
      },
    ];
    const { svc, changes, notes } = service(log);

    const { forwards, problems } = await svc.openDeclared(
      NODE,
      [target.port, `8888:${busyPort}`],
      [],
    );
    expect(problems).toEqual([
      `local port ${busyPort} is in use: pick another (8888:${busyPort + 1})`,
    ]);
    expect(notes).toEqual([`forward: ${problems[0]}`]);
    expect(forwards).toEqual([
      {
        runId: RUN,
        nodeId: NODE,
        direction: 'local',
        remotePort: target.port,
        localPort: expect.any(Number),
        host: '127.0.0.1',
        url: `http://127.0.0.1:${forwards[0]!.localPort}`,
        label: `port ${target.port}`,
        token: TOKEN, // the URL the job printed names this port
      },
    ]);
    expect((await roundTrip(forwards[0]!.localPort, 'hi')).toString()).toBe('hi');
    expect(await svc.list(RUN)).toEqual(forwards);
    expect(changes.at(-1)).toEqual({ runId: RUN, forwards });

    await svc.closeNode(NODE);
    expect(await connectOutcome(forwards[0]!.localPort)).toBe('ECONNREFUSED');
    expect(await svc.list()).toEqual([]);
    expect(changes.at(-1)).toEqual({ runId: RUN, forwards: [] });
  });

  it('opens, answers the same forward again, and closes one', async () => {
    const target = await echoServer();
    const { svc } = service();
    const a = await svc.open(RUN, undefined, { remotePort: target.port, localPort: 0 });
    const b = await svc.open(RUN, 'node-0', { remotePort: target.port, localPort: null });
    expect(b).toEqual(a);
    await expect(
      svc.open(RUN, '0', { remotePort: target.port, localPort: a.localPort + 1 }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(await svc.close(RUN, 'node-0', target.port, 'local')).toBe(true);
    expect(await svc.close(RUN, NODE, target.port, 'local')).toBe(false);
    expect(await connectOutcome(a.localPort)).toBe('ECONNREFUSED');
  });

  it('refuses bad declarations before opening anything', async () => {
    const { svc } = service();
    await expect(svc.openDeclared(NODE, [70000], [])).rejects.toMatchObject({
      code: 'bad_input',
      message: expect.stringContaining('not a port from 1 to 65535'),
    });
    expect(await svc.openDeclared(NODE, [], [])).toEqual({ forwards: [], problems: [] });
  });

  it('opens nothing once closed', async () => {
    const { svc } = service();
    await svc.closeAll();
    await expect(svc.open(RUN, undefined, { remotePort: 1, localPort: 0 })).rejects.toMatchObject({
      code: 'conflict',
    });
  });
});

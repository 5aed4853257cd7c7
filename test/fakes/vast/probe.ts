// Ways for a test to look at the fake from outside, as a client would: raw HTTP calls, a
// command on an instance through the system OpenSSH client, and the checks that a node is
// really gone (its port refuses, its processes are dead).
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { sshAs } from '../../helpers/sshd';
import type { FakeVast } from './index';

export interface VastResponse {
  status: number;
  text: string;
  /** The parsed body; undefined when it was not JSON. */
  json: unknown;
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  /** Default: the account key; null: no key at all. */
  key?: string | null;
  query?: Record<string, string>;
}

/** One HTTP call to the fake, `Authorization: Bearer` with the account key by default. */
export async function callVast(
  vast: FakeVast,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<VastResponse> {
  const url = new URL(`${vast.url}${path}`);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const key = opts.key === undefined ? vast.apiKey : opts.key;
  const headers: Record<string, string> = {};
  if (key) headers.Authorization = `Bearer ${key}`;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

export interface SshResult {
  /** 255: ssh itself failed (refused, key not accepted…). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cmd` on instance `id` as its node user with the private key in `keyFile`, pinning
 *  the node's host key (a known_hosts file is written into `workDir`). */
export function sshInstance(
  vast: FakeVast,
  id: number,
  keyFile: string,
  cmd: string,
  workDir: string,
): Promise<SshResult> {
  const inst = vast.state.instances().find((i) => i.id === id);
  if (!inst) throw new Error(`fake vast: no instance ${id}`);
  const { node } = inst;
  const knownHosts = join(workDir, `known_hosts_${id}`);
  const [type, b64] = node.hostPublicKey.split(' ');
  writeFileSync(knownHosts, `[127.0.0.1]:${node.port} ${type} ${b64}\n`);
  return sshAs({
    keyFile,
    port: node.port,
    knownHostsFile: knownHosts,
    target: `${node.user}@127.0.0.1`,
    cmd,
    connectTimeoutS: 10,
  });
}

/** True when nothing listens on 127.0.0.1:`port`. */
export function isPortRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** Alive and not a zombie (PID 1 on this VM reaps orphans late). */
export function isProcessAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

// Shared fixture of the VastProvider's unit tests (provider-*.test.ts): a MiniVast fake
// server, a private home folder and a fake clock, fresh for each test once a file calls
// `useMiniVast()`, and a provider pointed at them. Not part of any bundle.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { CreateLeaseRequest } from '../provider';
import { failedHostsPath } from './failed-hosts';
import { VastProvider } from './provider';
import { MINI_KEY, MiniVast } from './testing/mini-vast';
import { fakeClock } from './testing/scripted-server';

export const PUBLIC_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOk3b0gq1TPn9m6a4fL7c0ZP0nQ0ZJ8Zp0s1cN7s8H2f tender';
export const LABEL = 'tender-ab12cd-r1-node-0';
export const signal = () => new AbortController().signal;

// Live bindings: an importing test file sees each test's fresh values.
export let vast: MiniVast;
export let home: string;
export let clock: ReturnType<typeof fakeClock>;

/** Registers, for the calling test file, a fresh MiniVast, home and clock per test. */
export function useMiniVast(): void {
  beforeEach(async () => {
    vast = await MiniVast.start();
    home = mkdtempSync(join(tmpdir(), 'tender-vast-provider-'));
    clock = fakeClock(1_700_000_000_000);
  });

  afterEach(async () => {
    await vast.close();
    rmSync(home, { recursive: true, force: true });
  });
}

export function provider(over: Partial<ConstructorParameters<typeof VastProvider>[0]> = {}) {
  return new VastProvider({
    baseUrl: vast.url,
    apiKey: MINI_KEY,
    publicKey: () => PUBLIC_KEY,
    failedHostsPath: failedHostsPath(home),
    now: clock.now,
    http: { clock, random: () => 0.5, requestTimeoutMs: 2_000 },
    ...over,
  });
}

export function request(shape: Record<string, unknown> = {}, label = LABEL): CreateLeaseRequest {
  return { label, runId: 'r1', logicalId: 'node-0', shape };
}

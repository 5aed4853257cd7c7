// Slurm clusters in the UI, in Chromium against `tender serve` (web mode): Settings adds a
// cluster (a bad name refused beside its field, a taken one too), lists it and removes it
// after a confirm; the composer's Slurm pool picks it, a job file's [pool] Slurm fields fill
// it, and Run sends the run.start a tender.toml with the same pool would. Nothing is
// submitted: the page's WebSocket is routed through the test, which records each request and
// answers run.start itself; the login node (a real sshd that refuses Tender's key) is only
// contacted by the ledger's survey, which pins its host key. Needs root (the sshd). One
// screenshot: test/e2e/screenshots/settings-clusters.png.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WsRequest } from '../../src-main/contract/ws-protocol';
import { launchChromium } from '../helpers/browser';
import { CliProcess, killLeftovers, requireBuilt } from '../helpers/cli';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { dropFolder, screenshot, watchErrors } from '../helpers/ui';

let browser: Browser;
let serve: CliProcess;
let url: string;
let root: string;
let home: string;
/** The login node: a real sshd that does not authorize Tender's key. The ledger's survey
 *  asks each cluster for its allocations: this one shows its host key (pinned) and refuses
 *  the login at once, where a made-up address would be retried until the listing's
 *  deadline. */
let sshd: SshdFixture;
let login: string;

beforeAll(async () => {
  requireBuilt();
  root = mkdtempSync(join(tmpdir(), 'tender-ui-clusters-'));
  home = join(root, 'home');
  sshd = await startSshd();
  login = `${sshd.user}@127.0.0.1:${sshd.port}`;
  serve = new CliProcess(['serve'], { home });
  await serve.waitFor('stdout', /^Tender web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/);
  url = /^Tender web UI: (\S+)/.exec(serve.stdout)![1]!;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await sshd?.stop();
  killLeftovers(home);
  rmSync(root, { recursive: true, force: true });
});

const HELD = 'held by the test: no cluster is contacted';

/** A page whose WebSocket requests pass through the test: each is recorded, and run.start
 *  is answered here with an error instead of reaching Tender. */
async function openPage(): Promise<{ page: Page; sent: WsRequest[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const sent: WsRequest[] = [];
  await page.routeWebSocket(/\/ws(\?|$)/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      const req = JSON.parse(String(message)) as WsRequest;
      sent.push(req);
      if (req.command === 'run.start')
        ws.send(
          JSON.stringify({
            id: req.id,
            result: { ok: false, error: { code: 'infrastructure', message: HELD } },
          }),
        );
      else server.send(message);
    });
  });
  const errors = watchErrors(page);
  await page.goto(url);
  await page.getByTestId('ledger').waitFor();
  return { page, sent, errors };
}

const clustersToml = () => {
  try {
    return readFileSync(join(home, 'clusters.toml'), 'utf8');
  } catch {
    return '';
  }
};

describe('Slurm clusters in the UI', () => {
  it('adds, lists and removes a cluster in Settings; the composer submits to it', async () => {
    const { page, sent, errors } = await openPage();

    // The composer's Slurm pool before any cluster: it sends you to Settings.
    await page.getByTestId('nav-composer').click();
    await page.getByTestId('provider-slurm').click();
    await page.getByTestId('clusters-empty').waitFor();
    await page.getByTestId('clusters-open-settings').click();
    const section = page.getByTestId('settings-clusters');
    await section.waitFor();
    await section.getByTestId('clusters-none').waitFor();

    // A bad name (and a login that is none) is refused beside its field; nothing is written.
    await page.getByTestId('cluster-add-open').click();
    await page.getByTestId('cluster-name').fill('my lab');
    await page.getByTestId('cluster-login').fill('login.lab.edu');
    await page.getByTestId('cluster-gpuHourUsd').fill('-1');
    await page.getByTestId('cluster-add-save').click();
    expect(await page.getByTestId('cluster-error-name').innerText()).toBe(
      'letters, digits, . _ - only',
    );
    expect(await page.getByTestId('cluster-error-login').innerText()).toBe(
      'user@login-host, or user@login-host:port',
    );
    expect(await page.getByTestId('cluster-error-gpuHourUsd').innerText()).toBe('at least 0');
    expect(sent.filter((r) => r.command === 'clusters.add')).toEqual([]);
    expect(clustersToml()).toBe('');

    // Fixed, it is added, listed, and the hint names the key its login node must authorize.
    await page.getByTestId('cluster-name').fill('lab');
    expect(await page.getByTestId('cluster-error-name').count()).toBe(0);
    await page.getByTestId('cluster-login').fill(login);
    await page.getByTestId('cluster-partition').fill('gpu');
    await page.getByTestId('cluster-account').fill('ml');
    await page.getByTestId('cluster-gpuHourUsd').fill('0.5');
    await page.getByTestId('cluster-add-save').click();
    const row = section.locator('[data-testid="cluster-row"][data-cluster="lab"]');
    await row.waitFor();
    expect(await row.getByTestId('cluster-row-login').innerText()).toBe(login);
    expect(await row.getByTestId('cluster-row-defaults').innerText()).toMatch(
      /partition gpu\s+account ml\s+QOS \(default\)\s+notional \$0\.50\/GPU-h/,
    );
    expect(await row.getByTestId('cluster-row-key').innerText()).toBe('Tender’s key');
    expect(await row.getByTestId('cluster-row-host-key').innerText()).toBe('not contacted yet');
    const hint = page.getByTestId('cluster-added-hint');
    expect(await hint.innerText()).toMatch(
      /reached with Tender’s key unless a key file is given: add .*keys\/id_ed25519\.pub to ~\/\.ssh\/authorized_keys there/,
    );
    expect(await page.getByTestId('cluster-key-path').innerText()).toBe(
      `${home}/keys/id_ed25519.pub`,
    );
    expect(clustersToml()).toMatch(
      new RegExp(
        `name = "lab"[\\s\\S]*host = "127\\.0\\.0\\.1"[\\s\\S]*port = ${sshd.port}[\\s\\S]*partition = "gpu"[\\s\\S]*gpu_hour_usd = 0\\.5`,
      ),
    );

    // The core's refusal (a name taken) shows beside the name; the hint stays meanwhile.
    await page.getByTestId('cluster-add-open').click();
    await page.getByTestId('cluster-name').fill('lab');
    await page.getByTestId('cluster-login').fill('bob@other.lab.edu');
    await page.getByTestId('cluster-add-save').click();
    await expect
      .poll(() => page.getByTestId('cluster-error-name').innerText())
      .toMatch(/a cluster named "lab" exists/);
    expect(await hint.count()).toBe(1);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-clusters');

    // Another, with its own key file.
    await page.getByTestId('cluster-name').fill('hpc2');
    await page.getByTestId('cluster-login').fill(login);
    await page.getByTestId('cluster-identityFile').fill('~/.ssh/id_hpc');
    await page.getByTestId('cluster-qos').fill('long');
    await page.getByTestId('cluster-add-save').click();
    const second = section.locator('[data-testid="cluster-row"][data-cluster="hpc2"]');
    await second.waitFor();
    expect(await second.getByTestId('cluster-row-login').innerText()).toBe(login);
    expect(await second.getByTestId('cluster-row-key').innerText()).toBe('~/.ssh/id_hpc');
    expect(await hint.innerText()).toMatch(
      /Added hpc2\. Its login node is reached with ~\/\.ssh\/id_hpc/,
    );
    await hint.getByText('Dismiss').click();
    expect(await hint.count()).toBe(0);

    // Once the ledger's survey has contacted the login node, its host key shows as pinned.
    await expect
      .poll(
        async () => {
          await page.getByTestId('nav-ledger').click();
          await page.getByTestId('nav-settings').click();
          return row.getByTestId('cluster-row-host-key').innerText();
        },
        { timeout: 30_000 },
      )
      .toBe(sshd.hostKeyFingerprint);
    expect(await second.getByTestId('cluster-row-host-key').innerText()).toBe('not contacted yet');

    // A job file's [pool] Slurm fields fill the composer's Slurm pool.
    const work = join(root, 'slurm-job');
    mkdirSync(work, { recursive: true });
    writeFileSync(
      join(work, 'tender.toml'),
      [
        '[job]',
        'name = "slurm-ui"',
        'run = "nvidia-smi"',
        'workspace = { workdir = "." }',
        '',
        '[pool]',
        'provider = "slurm"',
        'cluster = "lab"',
        'partition = "debug"',
        'gpu_count = 1',
        'count = 1',
        '',
      ].join('\n'),
    );
    await page.getByTestId('nav-composer').click();
    await page.getByTestId('composer').waitFor();
    await dropFolder(page, 'workspace-drop', work);
    await page.getByTestId('load-toml').click();
    await expect.poll(() => page.getByTestId('job-run').inputValue()).toBe('nvidia-smi');
    expect(await page.getByTestId('provider-slurm').getAttribute('aria-checked')).toBe('true');
    expect(await page.getByTestId('slurm-cluster').inputValue()).toBe('lab');
    expect(await page.getByTestId('slurm-partition').inputValue()).toBe('debug');
    expect(await page.getByTestId('slurm-gpus').inputValue()).toBe('1');

    // Overrides and the shape, as typed; the summary says what sbatch gets.
    await page.getByTestId('slurm-qos').fill('bad qos');
    await page.getByTestId('run-button').click();
    await expect
      .poll(() => page.locator('.composer .field-error').first().innerText())
      .toMatch(/^QOS: letters, digits/);
    await page.getByTestId('slurm-qos').fill('high');
    await page.getByTestId('slurm-gpus').fill('2');
    await page.locator('#count').fill('2');
    expect(await page.getByTestId('slurm-summary').innerText()).toBe(
      'Submitted with partition debug, account ml (cluster default), QOS high; --gres=gpu:2.',
    );
    expect(await page.getByTestId('estimate-slurm').innerText()).toMatch(
      /Nothing bills allocations on lab; counted at \$2\.000\/h in the cost report/,
    );
    const pool = {
      provider: 'slurm',
      count: 2,
      verify: [],
      cluster: 'lab',
      partition: 'debug',
      qos: 'high',
      gpu_count: 2,
    };
    // The placement line asks run.plan with that pool (read from clusters.toml, nothing
    // contacted): two new allocations.
    await expect
      .poll(() => page.getByTestId('placement').innerText(), { timeout: 15_000 })
      .toMatch(/Submits 2 allocations, one node each/);
    const plans = sent.filter((r) => r.command === 'run.plan');
    expect((plans.at(-1)!.input as { pool: unknown }).pool).toEqual(pool);

    await page.getByTestId('run-button').click();
    await expect.poll(() => page.getByTestId('run-error').innerText()).toContain(HELD);
    const starts = sent.filter((r) => r.command === 'run.start');
    expect(starts).toHaveLength(1);
    const input = starts[0]!.input as { job: { name: string; run: string }; pool: unknown };
    expect(input.pool).toEqual(pool);
    expect(input.job).toMatchObject({ name: 'slurm-ui', run: 'nvidia-smi' });

    // Removed after a confirm; the composer then says the file's cluster is unknown here.
    await page.getByTestId('nav-settings').click();
    await section.waitFor();
    await row.getByTestId('cluster-remove').click();
    await page.getByTestId('cluster-confirm').click();
    await expect.poll(() => row.count()).toBe(0);
    await second.getByTestId('cluster-remove').click();
    await page.getByTestId('cluster-confirm').click();
    await section.getByTestId('clusters-none').waitFor();
    expect(clustersToml()).not.toMatch(/name = /);
    await page.getByTestId('nav-composer').click();
    expect(await page.getByTestId('slurm-cluster-unknown').innerText()).toMatch(
      /No cluster named lab here/,
    );
    expect(errors).toEqual([]);
    await page.close();
  });
});

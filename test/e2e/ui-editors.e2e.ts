// Your own tools on a kept node, in the UI (web mode; issue 29): the node pane offers
// "Open in VS Code", "Open in Cursor" and "Copy ssh command" for a node with an ssh entry
// (your own host over a real sshd); the links are the ones `tender open` prints; the first
// use before ~/.ssh/config reads Tender's entries offers the Include once; Settings says the
// line and installs / uninstalls it. The run header has the same row for the run's alias
// `tender-<run>`; a local run's is disabled and says why. Screenshots: ui-editors-node.png,
// ui-editors-run.png, ui-editors-run-local.png.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEditorUrl } from '../../src-main/contract/editor-url';
import { launchChromium } from '../helpers/browser';
import { CliProcess, runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { useLabHosts } from '../helpers/lab-host';
import { SCREENSHOTS, watchErrors } from '../helpers/ui';

const newHome = useTempHomes();
const labHost = useLabHosts(newHome);
let browser: Browser | null = null;
let serve: CliProcess | null = null;

afterEach(async () => {
  await browser?.close();
  browser = null;
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  serve = null;
});

describe('editor buttons on a kept node', () => {
  it('open in VS Code / Cursor, copy `ssh <alias>`, offer the Include once; Settings installs and removes it', async () => {
    const { home, root } = await labHost();
    // The user's own HOME: ~/.ssh/config is created there, never in the real one.
    const userHome = join(root, 'user');
    mkdirSync(userHome);
    const env = { HOME: userHome, PATH: '/usr/bin:/bin' };
    const job = writeJob(root, 'ws', `[job]\nname = "kept"\nrun = "echo ran"\n`);
    const run = await runCli(['run', job, '--hosts', 'lab', '--keep', '--json'], { home, env });
    expect(run.code, run.stderr).toBe(0);
    const runId = (JSON.parse(run.stdout.trim().split('\n').pop()!) as { runId: string }).runId;
    const alias = `tender-${runId}-node-0`;
    // A run on the local provider: its node is a folder here, no ssh entry can exist.
    const localJob = writeJob(root, 'lws', `[job]\nname = "here"\nrun = "echo here"\n`);
    const localRun = await runCli(['run', localJob, '--json'], { home, env });
    expect(localRun.code, localRun.stderr).toBe(0);
    const localId = (JSON.parse(localRun.stdout.trim().split('\n').pop()!) as { runId: string })
      .runId;

    serve = new CliProcess(['serve'], { home, env });
    await serve.waitFor('stdout', /^Tender web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/);
    const url = /^Tender web UI: (\S+)/.exec(serve.stdout)![1]!;
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${url}#/runs/${runId}`);
    // The run's own row in its header: the run alias `tender-<run>`, its first node's folder.
    const runTools = page.getByTestId('run-header').getByTestId('run-editors');
    const runCode = runTools.getByTestId('open-code');
    await expect.poll(() => runCode.getAttribute('href'), { timeout: 30_000 }).toMatch(/^vscode:/);
    const runHref = (await runCode.getAttribute('href'))!;
    expect(await runTools.getByTestId('ssh-alias').innerText()).toBe(`ssh tender-${runId}`);
    expect(await runCode.getAttribute('title')).toMatch(
      new RegExp(`^Opens /\\S+/workspace on tender-${runId} \\(node-0\\) in VS Code`),
    );
    await page.getByTestId('run-header').screenshot({
      path: join(SCREENSHOTS, 'ui-editors-run.png'),
    });
    const pane = page.getByTestId('log-pane').first();
    const editors = pane.getByTestId('node-editors');

    // The links: what `tender open` builds, for this node's alias and workspace.
    const code = editors.getByTestId('open-code');
    await expect.poll(() => code.getAttribute('href'), { timeout: 30_000 }).toMatch(/^vscode:/);
    const href = (await code.getAttribute('href'))!;
    const parsed = parseEditorUrl(href)!;
    expect(parsed).toMatchObject({ editor: 'code', alias });
    expect(parsed.folder).toMatch(/^\/.*\/\.tender\/nodes\/[^/]+\/workspace$/);
    // The run's link: the same folder through the run's alias; Cursor's the same again.
    expect(parseEditorUrl(runHref)).toEqual({ ...parsed, alias: `tender-${runId}` });
    expect(
      parseEditorUrl((await runTools.getByTestId('open-cursor').getAttribute('href'))!),
    ).toEqual({ ...parsed, alias: `tender-${runId}`, editor: 'cursor' });
    expect(
      parseEditorUrl((await editors.getByTestId('open-cursor').getAttribute('href'))!),
    ).toEqual({ ...parsed, editor: 'cursor' });
    expect(await editors.getByTestId('ssh-alias').innerText()).toBe(`ssh ${alias}`);

    await pane.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await pane.screenshot({ path: join(SCREENSHOTS, 'ui-editors-node.png') });

    // Copy before the Include is there: offered once, installed, then copied.
    const userConfig = join(userHome, '.ssh', 'config');
    await editors.getByTestId('copy-ssh').click();
    const offer = editors.getByTestId('ssh-include-offer');
    await offer.waitFor();
    const line = `Include ${join(home, 'ssh', 'config')}`;
    expect(await offer.innerText()).toContain(line);
    await offer.getByRole('button', { name: 'Install and continue' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe(`ssh ${alias}`);
    expect(readFileSync(userConfig, 'utf8').split('\n')[0]).toBe(line);
    await editors.getByTestId('copy-ssh').click(); // installed: no offer again
    expect(await offer.count()).toBe(0);

    // The CLI, installed now and without `code` on PATH, prints the very same URLs.
    const open = await runCli(['open', runId, '--node', '0'], { home, env });
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout.trim()).toBe(href);
    const openRun = await runCli(['open', runId], { home, env });
    expect(openRun.stdout.trim()).toBe(runHref);

    // The local run: every button disabled, the reason said (and the CLI says the same).
    await page.goto(`${url}#/runs/${localId}`);
    const localTools = page.getByTestId('run-header').getByTestId('run-editors');
    const reason = localTools.getByTestId('editor-buttons-why');
    await expect.poll(() => reason.innerText()).toMatch(/local-provider node is a folder/);
    for (const id of ['open-code', 'open-cursor', 'copy-ssh'])
      expect(await localTools.getByTestId(id).isDisabled()).toBe(true);
    expect(await localTools.getByTestId('open-code').getAttribute('title')).toBe(
      await reason.innerText(),
    );
    await page.getByTestId('run-header').screenshot({
      path: join(SCREENSHOTS, 'ui-editors-run-local.png'),
    });
    const openLocal = await runCli(['open', localId], { home, env });
    expect(openLocal.code).not.toBe(0);
    expect(openLocal.stderr).toMatch(/has no ssh entry: a local-provider node is a folder/);

    // Settings: the line, its state, Uninstall removes exactly it.
    await page.getByTestId('nav-settings').click();
    const section = page.getByTestId('settings-ssh-config');
    await expect
      .poll(() => section.getByTestId('ssh-include-state').innerText())
      .toMatch(/^Installed/);
    expect(await section.getByTestId('ssh-include-line').innerText()).toBe(line);
    await section.getByRole('button', { name: 'Uninstall' }).click();
    await expect
      .poll(() => section.getByTestId('ssh-include-state').innerText())
      .toBe('Not installed.');
    expect(readFileSync(userConfig, 'utf8')).toBe('');
    await section.getByRole('button', { name: 'Install' }).click();
    await expect.poll(() => readFileSync(userConfig, 'utf8')).toBe(`${line}\n`);
    expect(errors).toEqual([]);

    // The app holds the ledger: close it, then the node goes and its entry with it.
    serve.child.kill('SIGTERM');
    await serve.exited;
    const down = await runCli(['down', '--all'], { home, env });
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(join(home, 'ssh', 'config'), 'utf8')).not.toContain(`Host ${alias}`);
  });
});

// Starting fast: the composer's image picker in Chromium (web mode) and `tender offers
// --image(s)` in the built CLI. The well-known images, the marketplace's own first and marked
// as likely cached there; an image's size as its registry gives it (a fake registry on
// 127.0.0.1), "size unknown" with why where the registry cannot be asked, never a guess; an
// image that cannot work is named before anything is rented. Needs root (the RunPod fake).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN_IMAGES } from '../../src-main/contract';
import { startFakeRegistry, type FakeRegistry } from '../fakes/images/registry';
import { requireBuilt, runCli, useTempHomes } from '../helpers/cli';
import { runpodSetup } from '../helpers/runpod-core';
import { screenshot, watchErrors } from '../helpers/ui';
import { openWebUi, type WebUi } from '../helpers/web-ui';
const newHome = useTempHomes();

let ui: WebUi;
let reg: FakeRegistry;
let t: Awaited<ReturnType<typeof runpodSetup>>;

beforeAll(async () => {
  requireBuilt();
  reg = await startFakeRegistry({
    'lab/nonroot:1': { user: 'researcher', layers: [700_000_000, 2_500_000_000] },
    'lab/multi:2': {
      platforms: [
        { os: 'linux', architecture: 'amd64' },
        { os: 'linux', architecture: 'arm64' },
      ],
      layers: [512_400_000],
    },
  });
  t = await runpodSetup();
  ui = await openWebUi(t.core);
});

afterAll(async () => {
  await ui?.close();
  await t?.close();
  await reg?.stop();
});

describe('the composer: picking an image', () => {
  it('lists the well-known images, RunPod’s own first and marked cached; sizes from the registry', async () => {
    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 1100 } });
    const errors = watchErrors(page);
    await page.goto(ui.server.url);
    await page.getByTestId('nav-composer').click();
    await page.getByTestId('provider-runpod').click();
    const picks = page.getByTestId('image-picks').getByRole('button');
    await expect.poll(() => picks.count()).toBe(WELL_KNOWN_IMAGES.length);
    const labels = await picks.allInnerTexts();
    expect(labels[0]).toMatch(/^RunPod [^]*likely cached on RunPod$/);
    expect(labels.filter((l) => l.includes('likely cached on RunPod'))).toHaveLength(2);
    expect(await page.getByTestId('image-field').innerText()).toContain(
      'An image the host already holds starts in about a minute',
    );

    // A pick fills the image; its registry cannot be reached from here: said, not guessed.
    await picks.first().click();
    expect(await page.locator('#image').inputValue()).toMatch(/^runpod\//);
    const size = page.getByTestId('image-size');
    await expect.poll(() => size.innerText(), { timeout: 20_000 }).toMatch(/^size unknown \(/);

    // An image its registry describes: the size to pull, its platforms, its user.
    await page.locator('#image').fill(reg.ref('lab/nonroot:1'));
    await expect
      .poll(() => size.innerText(), { timeout: 20_000 })
      .toBe(`3.2 GB compressed (${reg.host}) · linux/amd64 · runs as researcher`);
    await page.getByTestId('image-field').scrollIntoViewIfNeeded();
    await screenshot(page, 'composer-image-picker');

    // An image that cannot run a node is named before the run starts.
    await page.locator('#image').fill('gcr.io/distroless/python3-debian12');
    await expect
      .poll(() => page.getByTestId('image-problem').innerText(), { timeout: 20_000 })
      .toContain('has no shell');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('tender offers --image / --images', () => {
  it('gives the registry’s size, or says it is unknown; refuses an image with no shell', async () => {
    const { home } = newHome();
    const one = await runCli(['offers', '--image', reg.ref('lab/multi:2')], { home });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain(`512 MB compressed (${reg.host})`);
    expect(one.stdout).toContain('linux/amd64,linux/arm64');
    expect(one.stderr).toContain('starts in about a minute');

    const all = await runCli(['offers', '--images', '--json'], { home });
    expect(all.code, all.stderr).toBe(0);
    const infos = JSON.parse(all.stdout) as {
      image: string;
      sizeBytes: number | null;
      sizeText: string;
    }[];
    expect(infos.map((i) => i.image)).toEqual(WELL_KNOWN_IMAGES.map((w) => w.image));
    // Their registries are not reachable from the test machine: no size is made up.
    for (const i of infos) {
      expect(i.sizeBytes).toBeNull();
      expect(i.sizeText).toMatch(/^size unknown \(.+\)$/);
    }

    const bad = await runCli(['offers', '--image', 'gcr.io/distroless/base'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('has no shell');
  });
});

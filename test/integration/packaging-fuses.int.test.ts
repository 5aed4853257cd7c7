// The packaged app's Electron fuses (electron-builder.yml `electronFuses`). The Electron
// binary cannot be downloaded here, so the config goes through electron-builder's own
// translation (PlatformPackager.generateFuseConfig, what `npm run package` runs before
// signing) and @electron/fuses flips them in a stand-in binary laid out as Electron's: the
// sentinel, the wire version, its length, then one byte per fuse at Electron's defaults.
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '../..');
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const ON = 0x31;
const OFF = 0x30;
// Electron's defaults, in wire order: RunAsNode, CookieEncryption, NodeOptions,
// NodeCliInspect, EmbeddedAsarIntegrity, OnlyLoadAppFromAsar, BrowserV8Snapshot,
// GrantFileProtocolExtraPrivileges.
const DEFAULTS = [ON, OFF, ON, ON, OFF, OFF, OFF, ON];

interface Fuses {
  flipFuses(path: string, config: object): Promise<number>;
  getCurrentFuseWire(path: string): Promise<Record<number, number>>;
  FuseV1Options: Record<string, number>;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function fuseConfigOfBuilderYml(): Promise<object> {
  const yml = load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as {
    electronFuses?: object;
  };
  expect(yml.electronFuses, 'electron-builder.yml has no electronFuses').toBeDefined();
  require('app-builder-lib'); // loads its modules in their own order (they import in a cycle)
  const { PlatformPackager } = require('app-builder-lib/out/platformPackager') as {
    PlatformPackager: { prototype: { generateFuseConfig(f: object): Promise<object> } };
  };
  return PlatformPackager.prototype.generateFuseConfig.call({}, yml.electronFuses!);
}

describe('Electron fuses of the packaged app', () => {
  it('turn off NODE_OPTIONS and --inspect (RunAsNode stays on for the local agent); turn on asar integrity, app.asar only and cookie encryption', async () => {
    const fuses = require('@electron/fuses') as Fuses;
    const dir = mkdtempSync(join(tmpdir(), 'tender-fuses-'));
    dirs.push(dir);
    const binary = join(dir, 'tender');
    writeFileSync(
      binary,
      Buffer.concat([
        Buffer.from('\x7fELF stand-in…'),
        Buffer.from(SENTINEL),
        Buffer.from([1, DEFAULTS.length, ...DEFAULTS]),
        Buffer.from('…rest of the binary'),
      ]),
    );

    await fuses.flipFuses(binary, await fuseConfigOfBuilderYml());

    const wire = await fuses.getCurrentFuseWire(binary);
    const o = fuses.FuseV1Options;
    const state = (name: string) => (wire[o[name]!] === ON ? 'on' : 'off');
    expect({
      RunAsNode: state('RunAsNode'),
      EnableNodeOptionsEnvironmentVariable: state('EnableNodeOptionsEnvironmentVariable'),
      EnableNodeCliInspectArguments: state('EnableNodeCliInspectArguments'),
      EnableEmbeddedAsarIntegrityValidation: state('EnableEmbeddedAsarIntegrityValidation'),
      OnlyLoadAppFromAsar: state('OnlyLoadAppFromAsar'),
      EnableCookieEncryption: state('EnableCookieEncryption'),
    }).toEqual({
      RunAsNode: 'on',
      EnableNodeOptionsEnvironmentVariable: 'off',
      EnableNodeCliInspectArguments: 'off',
      EnableEmbeddedAsarIntegrityValidation: 'on',
      OnlyLoadAppFromAsar: 'on',
      EnableCookieEncryption: 'on',
    });
  });
});

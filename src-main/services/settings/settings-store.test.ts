import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDefaults, readNotify, writeDefaults, writeNotify } from './settings-store';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});
function home(): string {
  const h = mkdtempSync(join(tmpdir(), 'tender-settings-'));
  homes.push(h);
  return h;
}

describe('settings.json', () => {
  it('has notifications on and no webhook until set', () => {
    expect(readNotify(home())).toEqual({ notifyDesktop: true, webhookUrl: null });
  });

  it('keeps each section when the other is written, in a file only its owner reads', () => {
    const h = home();
    writeDefaults(h, { ...readDefaults(h), maxBootAttempts: 5 });
    writeNotify(h, { notifyDesktop: false, webhookUrl: 'https://hooks.example.com/T/B/x' });
    writeDefaults(h, { ...readDefaults(h), diskGb: 64 });
    expect(readNotify(h)).toEqual({
      notifyDesktop: false,
      webhookUrl: 'https://hooks.example.com/T/B/x',
    });
    expect(readDefaults(h)).toMatchObject({ maxBootAttempts: 5, diskGb: 64 });
    expect(JSON.parse(readFileSync(join(h, 'settings.json'), 'utf8')).notify.webhookUrl).toBe(
      'https://hooks.example.com/T/B/x',
    );
    expect(statSync(join(h, 'settings.json')).mode & 0o777).toBe(0o600);
  });

  it('falls back to the defaults for a malformed file or section', () => {
    const h = home();
    writeFileSync(join(h, 'settings.json'), '{"notify": {"notifyDesktop": "yes"}}');
    expect(readNotify(h)).toEqual({ notifyDesktop: true, webhookUrl: null });
    writeFileSync(join(h, 'settings.json'), 'not json');
    expect(readNotify(h).webhookUrl).toBeNull();
  });
});

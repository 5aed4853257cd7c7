// The VastProvider's API key: without one it is not configured and says which variable to
// set; a wrong one is fatal and never echoed.
import { describe, expect, test } from 'vitest';
import { VastApiError } from './errors';
import { provider, signal, useMiniVast, vast } from './provider.test-util';

useMiniVast();

describe('configuration', () => {
  test('no API key: not configured, and every call says which variable to set', async () => {
    const p = provider({ apiKey: '' });

    expect(p.isConfigured()).toBe(false);
    const err = await p.listLabeled('tender-', signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VastApiError);
    expect((err as VastApiError).opts.hint).toContain('TENDER_VASTAI_API_KEY');
    expect(vast.server.requests).toHaveLength(0);
  });

  test('a wrong key: 401, fatal, naming TENDER_VASTAI_API_KEY, never echoing the key', async () => {
    const p = provider({ apiKey: 'wrong-key-abcdefgh' });

    const err = (await p.listLabeled('tender-', signal()).catch((e: unknown) => e)) as VastApiError;

    expect(p.isConfigured()).toBe(true);
    expect(err.status).toBe(401);
    expect(err.opts.fatal).toBe(true);
    expect(err.message).toContain('TENDER_VASTAI_API_KEY');
    expect(err.message).not.toContain('wrong-key-abcdefgh');
  });
});

// The VastProvider against the one provider conformance suite, on a MiniVast fake of its
// own per test (test/helpers/provider-conformance.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerConformance } from '../../../test/helpers/provider-conformance';
import { failedHostsPath } from './failed-hosts';
import { VastProvider } from './provider';
import { PUBLIC_KEY } from './provider.test-util';
import { MINI_KEY, MiniVast } from './testing/mini-vast';

providerConformance('vastai (mini fake)', async () => {
  const mini = await MiniVast.start();
  for (let i = 0; i < 8; i++) mini.addOffer();
  const dir = mkdtempSync(join(tmpdir(), 'tender-vast-conf-'));
  const make = () =>
    new VastProvider({
      baseUrl: mini.url,
      apiKey: MINI_KEY,
      publicKey: () => PUBLIC_KEY,
      failedHostsPath: failedHostsPath(dir),
    });
  return {
    provider: make(),
    reopen: make,
    shape: { gpu: 'RTX_4090', disk_gb: 16 },
    dispose: async () => {
      await mini.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

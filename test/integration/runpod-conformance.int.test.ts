// The RunpodProvider against the one provider conformance suite, on a fake RunPod of its own
// per test (real sshd nodes: needs root).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeRunpod } from '../fakes/runpod';
import { providerConformance } from '../helpers/provider-conformance';
import { runpodProviderFor } from '../helpers/runpod-core';

providerConformance('runpod (faithful fake)', async () => {
  const fake = await startFakeRunpod();
  const home = mkdtempSync(join(tmpdir(), 'tender-runpod-conf-'));
  const make = () => runpodProviderFor(fake, home);
  return {
    provider: make(),
    reopen: make,
    shape: { gpu: 'RTX_4090', disk_gb: 16 },
    dispose: async () => {
      await fake.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
});

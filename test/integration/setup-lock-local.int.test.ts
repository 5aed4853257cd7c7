// Two nodes on one machine (the local provider's nodes are folders of this one) with the
// same setup: setup is cached by default, so both want the one environment. The second
// waits for the first's build and then skips setup — it never fails because the build was
// still going (a seam of the default setup cache and a pool of two).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runToEnd, useLocalHomes } from '../helpers/local-cores';

const localHome = useLocalHomes('tender-setup-lock-');

describe('one environment, two nodes on one machine', () => {
  it('the second node waits for the build under way, then skips setup', async () => {
    const { open, work, root } = localHome();
    const core = open();
    const run = await runToEnd(core, {
      job: {
        name: 'two',
        // Long enough that the other node's start always finds the build under way.
        setup: `sleep 2; echo built >> ${root}/setup-count`,
        run: 'echo ran',
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'local', count: 2, verify: [] },
    });
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(readFileSync(join(root, 'setup-count'), 'utf8').trim().split('\n')).toEqual(['built']);
    const out = await core.client.invoke('logs.read', {
      runId: run.id,
      limit: 10_000,
    });
    const texts = out.ok ? out.value.records.map((r) => JSON.stringify(r)) : [];
    expect(
      texts.some((t) => /is being built by process \d+ on this node: waiting for it/.test(t)),
    ).toBe(true);
    expect(texts.some((t) => /setup skipped: environment for/.test(t))).toBe(true);
  });
});

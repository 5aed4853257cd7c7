// Endpoint known → agent joined, over SSH to a real sshd on loopback: connect, probe, find
// Node, push the agent (first time only), verify, start the agent detached, hello. Prints the
// cold join (agent pushed) and the median warm join (agent cached on the node).
// Target: under 2 s on loopback.
// Usage: node bench/run.mjs join [runs=7]   (as root, after `npm run build`)
import { randomBytes } from 'node:crypto';
import { loadAgentBundle } from '../src-main/nodes/agent-bundle';
import { runtimeLookup } from '../src-main/nodes/runtime-bundle';
import { BootstrapSession, DEFAULT_DEADLINES } from '../src-main/nodes/bootstrap-session';
import { layoutFor } from '../src-main/nodes/node-layout';
import { startSshd } from '../test/helpers/sshd';
import { connect, median, ms, sh, sshArgs, timed } from './bench-helpers';

const RUNS = Number(process.argv[2] ?? 7);
const fixture = await startSshd();
try {
  const joins: number[] = [];
  const agentBundle = loadAgentBundle();
  for (let i = 0; i <= RUNS; i++) {
    const label = `bench-join-${i}-${randomBytes(3).toString('hex')}`;
    const endpoint = {
      kind: 'ssh' as const,
      host: fixture.host,
      port: fixture.port,
      user: fixture.user,
      authRef: 'tender',
      hostKeyScope: `lease:${label}`,
      knownHosts: false,
    };
    let joinedAt = 0;
    const session = new BootstrapSession(
      {
        connect: () => connect(fixture),
        layout: layoutFor(endpoint, label, '/nonexistent'),
        agentBundle,
        runtimeFor: runtimeLookup(),
        verify: [],
        agentId: `ag-${label}`,
        hostDeclaration: {},
        hostKey: 'hk1_ljwqko7vjw2cnyny',
        deadlines: DEFAULT_DEADLINES,
      },
      {
        observed: () => {},
        log: () => {},
        joined: () => {
          joinedAt = performance.now();
          session.convergenceObserved();
        },
      },
    );
    const t0 = performance.now();
    await timed(() => session.run(AbortSignal.timeout(60_000)));
    joins.push(joinedAt - t0);
  }
  const [cold, ...warm] = joins;
  console.log(`join over SSH (endpoint known → agent joined), sshd on 127.0.0.1:${fixture.port}:`);
  console.log(`  first (agent pushed)       ${ms(cold!)}`);
  console.log(`  warm median of ${RUNS}        ${ms(median(warm))}   (target < 2000 ms)`);
  console.log(`  warm min / max             ${ms(Math.min(...warm))} / ${ms(Math.max(...warm))}`);
  const sshOpts = sshArgs(fixture, fixture.home).join(' ');
  const baseline = await timed(() => sh(`ssh ${sshOpts} ${fixture.user}@127.0.0.1 true`));
  console.log(`  baseline: one \`ssh host true\` ${ms(baseline.ms)}`);
  console.log(median(warm) < 2000 ? 'PASS: under 2 s' : 'MISS: over 2 s');
} finally {
  await fixture.stop();
}

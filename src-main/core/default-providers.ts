import type { Ledger } from '../ledger/ledger';
import { pooledSshConnector, sshConnector } from '../nodes/ssh-connect';
import type { ShellPool } from '../transport/shell-pool';
import { LocalProvider } from '../providers/local/local-provider';
import type { Provider } from '../providers/provider';
import { endpointOf, SshProvider } from '../providers/ssh/ssh-provider';
import { failedHostsPath } from '../providers/vastai/failed-hosts';
import { VastProvider } from '../providers/vastai/provider';
import { LambdaProvider } from '../providers/lambda/provider';
import { RunpodProvider } from '../providers/runpod/provider';
import { cachedInspector } from '../providers/images/image-plan';
import { registryInspector } from '../providers/images/registry-client';
import { SlurmProvider } from '../providers/slurm/slurm-provider';
import { loginEndpoint } from '../providers/slurm/slurm-endpoint';
import { secretOrEnv, type SecretStore } from '../services/settings/secret-store';
import { ensureTenderKey } from '../transport/keys';

/** A host answers the ssh provider's own commands (list, destroy) within this. */
const SSH_PROVIDER_CONNECT_MS = 60_000;
/** A cluster's login node answers within this (a status survey, a lookup every 0.5 s: an
 *  unreachable one must not hold them for a minute; the lookup simply tries again). */
const SLURM_LOGIN_CONNECT_MS = 10_000;

export interface ProviderDeps {
  home: string;
  now: () => number;
  ledger: Ledger;
  env: NodeJS.ProcessEnv;
  secrets: SecretStore;
  /** ssh connections kept between their users: the ssh provider's listing and destroy
   *  share the node's (transport/shell-pool.ts). */
  shellPool?: ShellPool;
}

/** local (a sandbox folder on this machine), the marketplaces (vastai, runpod, lambda),
 *  ssh (machines in hosts.toml) and slurm (clusters in clusters.toml). */
export function defaultProviders(d: ProviderDeps): Provider[] {
  // One registry look per image per 10 minutes, shared by the marketplaces.
  const inspectImage = cachedInspector(registryInspector());
  return [
    new LocalProvider(d.home, d.now),
    new VastProvider({
      // The OS keychain in the app, a 0600 file otherwise, then TENDER_VASTAI_API_KEY; read at
      // each use, so a key set in Settings works at once.
      apiKey: () => secretOrEnv(d.secrets, 'vastaiApiKey', d.env).value ?? '',
      baseUrl: d.env.TENDER_VASTAI_URL || undefined,
      publicKey: () => ensureTenderKey(d.home).publicKey,
      failedHostsPath: failedHostsPath(d.home),
      inspectImage,
      now: d.now,
    }),
    new RunpodProvider({
      apiKey: () => secretOrEnv(d.secrets, 'runpodApiKey', d.env).value ?? '',
      baseUrl: d.env.TENDER_RUNPOD_URL || undefined,
      publicKey: () => ensureTenderKey(d.home).publicKey,
      inspectImage,
      now: d.now,
    }),
    new LambdaProvider({
      apiKey: () => secretOrEnv(d.secrets, 'lambdaApiKey', d.env).value ?? '',
      baseUrl: d.env.TENDER_LAMBDA_URL || undefined,
      publicKey: () => ensureTenderKey(d.home).publicKey,
      now: d.now,
    }),
    new SshProvider(d.home, (host, signal) =>
      pooledSshConnector(endpointOf(host), d, SSH_PROVIDER_CONNECT_MS, {
        light: true, // a listing, a destroy: short commands, beside a node's link
      })(signal),
    ),
    new SlurmProvider(d.home, (cluster, signal) =>
      sshConnector(loginEndpoint(cluster), d, SLURM_LOGIN_CONNECT_MS)(signal),
    ),
  ];
}

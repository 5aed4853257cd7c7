/** Provider kinds this build can use; checked before anything is opened. */
export const KNOWN_PROVIDERS: readonly string[] = [
  'local',
  'ssh',
  'vastai',
  'slurm',
  'runpod',
  'lambda',
];

/** The provider a pool names when it names none: a sandbox folder on this machine. */
export const DEFAULT_PROVIDER = 'local';

/** The provider of your own machines (hosts.toml), which `--hosts` picks when no provider is
 *  named: its pools name hosts instead of a count. */
export const HOSTS_PROVIDER = 'ssh';

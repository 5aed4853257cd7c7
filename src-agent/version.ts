/** The agent's version: the package version in the bundle, 'dev' when run from source. */
export const AGENT_VERSION: string =
  typeof __AGENT_VERSION__ === 'string' ? __AGENT_VERSION__ : 'dev';

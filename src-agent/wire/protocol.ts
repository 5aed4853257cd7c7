// The agent's control protocol and the outputs of its commands (docs/agent-protocol.md),
// one file per part: protocol-*.ts. The agent and the app import them through this file.
// Types and constants only: the app imports it.

/** Bumped when a change to any protocol-*.ts would break an app built against the previous
 *  one. */
export const PROTOCOL_VERSION = 1;

export * from './protocol-agent';
export * from './protocol-commands';
export * from './protocol-dead-man';
export * from './protocol-host-setup';
export * from './protocol-job';
export * from './protocol-log';
export * from './protocol-ops';
export * from './protocol-outputs';
export * from './protocol-phase';
export * from './protocol-workspace';

import { unwrap } from '../api/dispatch';
import type { CommandInput, CommandName, CommandOutput } from '../contract';
import type { CoreOptions } from '../core/tender-core';
import type { TenderCore } from '../core/tender-core';
import { defaultHome } from '../base/paths';

/** Everything a CLI command needs: where the data lives and how to open the core. */
export interface CliContext {
  home: string;
  env: NodeJS.ProcessEnv;
  coreOptions: CoreOptions;
}

export function cliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  const home = defaultHome(env);
  return { home, env, coreOptions: { home, env } };
}

export async function call<C extends CommandName>(
  core: TenderCore,
  cmd: C,
  input: CommandInput<C>,
): Promise<CommandOutput<C>> {
  return unwrap(await core.client.invoke(cmd, input));
}

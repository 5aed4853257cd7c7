// `<command> --flag value …` — the only argv shape the agent takes.

export class UsageError extends Error {}

export interface CommandArgs {
  command: string;
  flags: Map<string, string>;
}

/** `switches` are flags without a value (`--in-place`); each reads as `'true'`. */
export function parseArgs(argv: string[], switches: readonly string[] = []): CommandArgs {
  const [command = '', ...rest] = argv;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i] as string;
    if (flag.startsWith('--') && switches.includes(flag.slice(2))) {
      flags.set(flag.slice(2), 'true');
      i -= 1; // a switch takes one word, not two
      continue;
    }
    const value = rest[i + 1];
    if (!flag.startsWith('--') || value === undefined) {
      throw new UsageError(
        `expected "--flag value" pairs, got ${JSON.stringify(rest.slice(i).join(' '))}`,
      );
    }
    flags.set(flag.slice(2), value);
  }
  return { command, flags };
}

export function requireFlag(args: CommandArgs, name: string): string {
  const value = args.flags.get(name);
  if (value === undefined || value === '') throw new UsageError(`${args.command} needs --${name}`);
  return value;
}

export function allowOnly(args: CommandArgs, names: string[]): void {
  for (const flag of args.flags.keys()) {
    if (!names.includes(flag)) throw new UsageError(`${args.command} does not take --${flag}`);
  }
}

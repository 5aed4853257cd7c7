// `tender mcp`'s flags: the guard rails a person sets for an agent. Pure, table-tested.
import { parseArgs } from 'node:util';
import { TenderError } from '../../base/tender-error';
import { chainOf, providerNameProblem } from '../../providers/failover/chain';
import { KNOWN_PROVIDERS } from '../../providers/known';

export const MCP_USAGE =
  'tender mcp --budget USD|none [--max-nodes N] [--providers a,b] [--allow-down-any] [--print-config]';

/** What a session of `tender mcp` may do. */
export interface McpLimits {
  /** Dollars the session's runs may commit in all; null: `--budget none`, said explicitly. */
  budgetUsd: number | null;
  /** Live nodes (or nodes about to rent) across the session's runs; null: no cap. */
  maxNodes: number | null;
  /** The providers the agent may name (a chain's every member must be one). */
  providers: readonly string[];
  /** `down`/`cancel` of what another session or a person started. */
  allowDownAny: boolean;
}

export interface McpFlags extends McpLimits {
  printConfig: boolean;
  /** The flags as given, in order, for --print-config's `args`. */
  given: string[];
}

/** Parses `tender mcp`'s argv; bad input names the flag and the fix. */
export function parseMcpFlags(argv: string[]): McpFlags {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      budget: { type: 'string' },
      'max-nodes': { type: 'string' },
      providers: { type: 'string' },
      'allow-down-any': { type: 'boolean', default: false },
      'print-config': { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0)
    throw new TenderError('bad_input', `tender mcp takes no "${positionals[0]}"`, MCP_USAGE);
  const budgetUsd = budgetFlag(values.budget);
  const maxNodes = values['max-nodes'] === undefined ? null : maxNodesFlag(values['max-nodes']);
  const providers =
    values.providers === undefined ? [...KNOWN_PROVIDERS] : providersFlag(values.providers);
  const given = ['--budget', budgetUsd === null ? 'none' : String(budgetUsd)];
  if (maxNodes !== null) given.push('--max-nodes', String(maxNodes));
  if (values.providers !== undefined) given.push('--providers', providers.join(','));
  if (values['allow-down-any']) given.push('--allow-down-any');
  return {
    budgetUsd,
    maxNodes,
    providers,
    allowDownAny: values['allow-down-any'] === true,
    printConfig: values['print-config'] === true,
    given,
  };
}

function budgetFlag(raw: string | undefined): number | null {
  if (raw === undefined)
    throw new TenderError(
      'bad_input',
      'tender mcp needs --budget: the dollars the agent may commit in this session',
      'give --budget 5 (USD), or --budget none to let the agent spend without a session cap',
    );
  if (raw.trim().toLowerCase() === 'none') return null;
  const n = Number(raw.trim().replace(/^\$/, ''));
  if (!Number.isFinite(n) || n <= 0)
    throw new TenderError(
      'bad_input',
      `--budget must be dollars above 0 or none, not "${raw}"`,
      'e.g. --budget 5, or --budget none',
    );
  return n;
}

function maxNodesFlag(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1024)
    throw new TenderError(
      'bad_input',
      `--max-nodes must be a whole number from 1 to 1024, not "${raw}"`,
    );
  return n;
}

function providersFlag(raw: string): string[] {
  const names = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new TenderError('bad_input', '--providers names none', `e.g. --providers local,vastai`);
  for (const name of names) {
    const problem = chainOf(name) ? null : providerNameProblem(name, KNOWN_PROVIDERS);
    if (chainOf(name) || problem)
      throw new TenderError(
        'bad_input',
        `--providers: ${problem?.text ?? `"${name}" is not one provider`}`,
        `known providers: ${KNOWN_PROVIDERS.join(', ')}`,
      );
  }
  return [...new Set(names)];
}

/** Why a pool's provider (one, a chain, or `cheapest`) is not the agent's to use; null: it is. */
export function providerRefusal(kind: string, allowed: readonly string[]): TenderError | null {
  const members = chainOf(kind) ?? [kind];
  const refused = members.filter((m) => !allowed.includes(m));
  if (refused.length === 0) return null;
  return new TenderError(
    'bad_input',
    `this session may not use ${refused.join(', ')} (tender mcp --providers ${allowed.join(',')})`,
    `use one of ${allowed.join(', ')}, or ask the person running Tender to add it to --providers`,
  );
}

import { describe, expect, it } from 'vitest';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { parseMcpFlags, providerRefusal } from './mcp-flags';

describe('tender mcp flags', () => {
  const ok: [string, string[], Partial<ReturnType<typeof parseMcpFlags>>][] = [
    [
      'a budget in dollars',
      ['--budget', '5'],
      { budgetUsd: 5, maxNodes: null, allowDownAny: false },
    ],
    ['a budget with a dollar sign', ['--budget', '$0.50'], { budgetUsd: 0.5 }],
    ['no budget, said explicitly', ['--budget', 'none'], { budgetUsd: null }],
    ['NONE in capitals', ['--budget', 'NONE'], { budgetUsd: null }],
    ['a node cap', ['--budget', '1', '--max-nodes', '4'], { maxNodes: 4 }],
    [
      'providers, trimmed and once each',
      ['--budget', '1', '--providers', 'vastai, local,vastai'],
      { providers: ['vastai', 'local'] },
    ],
    ['every known provider by default', ['--budget', '1'], { providers: [...KNOWN_PROVIDERS] }],
    ['down of anything', ['--budget', '1', '--allow-down-any'], { allowDownAny: true }],
    ['print the config', ['--budget', '1', '--print-config'], { printConfig: true }],
    [
      'the flags given, for the config',
      ['--max-nodes', '2', '--budget', '$3', '--providers', 'local', '--allow-down-any'],
      { given: ['--budget', '3', '--max-nodes', '2', '--providers', 'local', '--allow-down-any'] },
    ],
  ];
  it.each(ok)('%s', (_name, argv, expected) => {
    expect(parseMcpFlags(argv)).toMatchObject(expected);
  });

  const bad: [string, string[], RegExp][] = [
    ['no budget at all', [], /needs --budget[\s\S]*--budget none/],
    ['no budget with --print-config', ['--print-config'], /needs --budget/],
    ['a zero budget', ['--budget', '0'], /above 0 or none/],
    ['a negative budget', ['--budget=-1'], /above 0 or none/],
    ['words for a budget', ['--budget', 'lots'], /not "lots"/],
    ['a fractional node cap', ['--budget', '1', '--max-nodes', '1.5'], /whole number/],
    ['a zero node cap', ['--budget', '1', '--max-nodes', '0'], /whole number/],
    ['an unknown provider', ['--budget', '1', '--providers', 'aws'], /unknown provider "aws"/],
    ['a chain in --providers', ['--budget', '1', '--providers', 'cheapest'], /not one provider/],
    ['an empty provider list', ['--budget', '1', '--providers', ','], /names none/],
    ['a positional', ['--budget', '1', 'serve'], /takes no "serve"/],
  ];
  it.each(bad)('refuses %s', (_name, argv, message) => {
    let caught: unknown;
    try {
      parseMcpFlags(argv);
    } catch (err) {
      caught = err;
    }
    const e = caught as { code?: string; message: string; hint?: string };
    expect(e?.code).toBe('bad_input');
    expect(`${e.message} ${e.hint ?? ''}`).toMatch(message);
  });

  const pools: [string, string, string[], RegExp | null][] = [
    ['an allowed provider', 'local', ['local'], null],
    ['one not allowed', 'vastai', ['local'], /may not use vastai/],
    ['a chain, every member allowed', 'runpod,vastai', ['vastai', 'runpod'], null],
    ['a chain with one member not allowed', 'runpod,vastai', ['vastai'], /may not use runpod/],
    ['cheapest needs every marketplace', 'cheapest', ['vastai', 'runpod'], /may not use lambda/],
  ];
  it.each(pools)('a pool naming %s', (_name, kind, allowed, refused) => {
    const r = providerRefusal(kind, allowed);
    if (refused === null) expect(r).toBeNull();
    else expect(r?.message).toMatch(refused);
  });
});

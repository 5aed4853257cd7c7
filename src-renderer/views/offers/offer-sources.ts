import type { CommandOutput } from '../../../src-main/contract';
import { MARKET, MARKETPLACES, marketName, type Marketplace } from '../../lib/marketplaces';

export type Source = CommandOutput<'offers.searchAll'>['sources'][number];

/** One marketplace in the line above the table. */
export interface SourceItem {
  provider: string;
  state: 'ok' | 'error' | 'off';
  /** "Vast.ai 12", "Lambda Cloud: refused the API key — set TENDER_LAMBDA_API_KEY…" */
  text: string;
  /** A key in Settings would fix it (missing or refused). */
  isKeyProblem: boolean;
}

/** An error that a key in Settings fixes: it speaks of an API key. */
export function isKeyText(message: string, hint: string | null | undefined): boolean {
  return /api key/i.test(`${message} ${hint ?? ''}`);
}

/** What each marketplace answered, in the order searched, then those without a key (so the
 *  line says why they are not in the table). */
export function sourceItems(
  sources: readonly Source[],
  configured: readonly Marketplace[],
): SourceItem[] {
  const items: SourceItem[] = sources.map((s) => {
    const name = marketName(s.provider);
    if (!s.error)
      return { provider: s.provider, state: 'ok', text: `${name} ${s.count}`, isKeyProblem: false };
    const { message, hint } = s.error;
    // "Lambda Cloud refused the API key" reads "Lambda Cloud: refused the API key".
    const what = message.startsWith(`${name} `) ? message.slice(name.length + 1) : message;
    return {
      provider: s.provider,
      state: 'error',
      text: `${name}: ${what}${hint ? ` — ${hint}` : ''}`,
      isKeyProblem: isKeyText(message, hint),
    };
  });
  const answered = new Set(sources.map((s) => s.provider));
  for (const m of MARKETPLACES)
    if (!answered.has(m) && !configured.includes(m))
      items.push({
        provider: m,
        state: 'off',
        text: `${MARKET[m].name}: no API key (set ${MARKET[m].env} or add it in Settings)`,
        isKeyProblem: true,
      });
  return items;
}

/** Nothing came back because every marketplace searched failed (not because none matched). */
export function isNoneAnswered(sources: readonly Source[]): boolean {
  return sources.length > 0 && sources.every((s) => s.error !== null);
}

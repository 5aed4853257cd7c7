import { TenderError } from '../base/tender-error';
import { CHEAPEST, chainOf, MARKETPLACES, providerNameProblem } from './failover/chain';
import { FailoverProvider } from './failover/failover-provider';
import type { Provider } from './provider';

/** The providers this process can use, by kind. A kind naming several marketplaces
 *  (`runpod,vastai`, `cheapest`) is a FailoverProvider over them, made when first asked
 *  for; `all()` lists only the providers themselves, so nothing is listed twice. */
export class ProviderRegistry {
  private readonly byKind = new Map<string, Provider>();
  private readonly chains = new Map<string, Provider>();

  constructor(providers: Provider[]) {
    for (const p of providers) this.byKind.set(p.kind, p);
  }

  kinds(): string[] {
    return [...this.byKind.keys()];
  }

  all(): Provider[] {
    return [...this.byKind.values()];
  }

  get(kind: string): Provider {
    const p = this.byKind.get(kind);
    if (p) return p;
    if (chainOf(kind)) return this.chain(kind);
    throw new TenderError(
      'bad_input',
      `unknown provider "${kind}"`,
      `known providers: ${this.kinds().join(', ')}`,
    );
  }

  private chain(kind: string): Provider {
    const kept = this.chains.get(kind);
    if (kept) return kept;
    const problem = providerNameProblem(kind, this.kinds());
    if (problem) throw new TenderError('bad_input', problem.text, problem.hint);
    const members =
      kind === CHEAPEST ? MARKETPLACES.filter((k) => this.byKind.has(k)) : chainOf(kind)!;
    const made = new FailoverProvider(kind, members, (k) => this.get(k));
    this.chains.set(kind, made);
    return made;
  }
}

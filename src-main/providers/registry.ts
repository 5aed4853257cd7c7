import { TenderError } from '../base/tender-error';
import type { Provider } from './provider';

/** The providers this process can use, by kind. */
export class ProviderRegistry {
  private readonly byKind = new Map<string, Provider>();

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
    if (!p) {
      throw new TenderError(
        'bad_input',
        `unknown provider "${kind}"`,
        `known providers: ${this.kinds().join(', ')}`,
      );
    }
    return p;
  }
}

import { ProviderError } from '../../base/provider-error';

/** A marketplace adapter's API client for the key it is configured with now, made again
 *  when the key changes (set in Settings while Tender runs). A key that cannot make one (no
 *  key, a bad base URL) means the provider is not configured, and is what every call then
 *  throws. `onChange` runs when a new key is taken (what the old account held is forgotten). */
export class KeyedClient<T> {
  private client: T | null = null;
  private error: Error | null = null;
  private keyUsed: string | null = null;

  constructor(
    private readonly apiKey: string | (() => string),
    private readonly make: (key: string) => T,
    private readonly opts: { name: string; onChange?: () => void },
  ) {
    this.refresh();
  }

  isConfigured(): boolean {
    this.refresh();
    return this.client !== null;
  }

  /** The client, or the error that stops one being made (the adapter's own error class, as
   *  its transport threw it; anything else as a fatal ProviderError naming the provider). */
  get(): T {
    this.refresh();
    if (this.client) return this.client;
    const err = this.error;
    if (err instanceof ProviderError) throw err;
    throw new ProviderError(`${this.opts.name} is not configured: ${err?.message ?? 'unknown'}`, {
      fatal: true,
    });
  }

  private refresh(): void {
    const key = typeof this.apiKey === 'function' ? this.apiKey() : this.apiKey;
    if (key === this.keyUsed && (this.client || this.error)) return;
    this.keyUsed = key;
    this.client = null;
    this.error = null;
    this.opts.onChange?.();
    try {
      this.client = this.make(key);
    } catch (err) {
      this.error = err as Error; // reported by isConfigured() and by every call
    }
  }
}

/** Tender's SSH public key as a marketplace is given it: one OpenSSH line, never a private
 *  key; unreadable or malformed is fatal (no lease can be reached without it). */
export function readPublicKey(get: () => string): string {
  let key: string;
  try {
    key = get().trim();
  } catch (err) {
    throw new ProviderError(`Tender's SSH key is not readable: ${(err as Error).message}`, {
      fatal: true,
    });
  }
  if (!/^(ssh-|ecdsa-|sk-)\S+ \S+/.test(key) || key.includes('PRIVATE KEY'))
    throw new ProviderError("Tender's SSH public key is not an OpenSSH public key", {
      fatal: true,
    });
  return key;
}

/** What a provider throws. `outcomeUnknown: true` means a create may have happened anyway (a
 *  timeout, a 5xx after sending): look the label up before retrying. `fatal: true` means the
 *  lease can never become usable. `noCapacity: true` means nothing matching the shape can be
 *  rented there now (no offer, out of stock, insufficient capacity): a pool that names
 *  several providers tries the next one. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly opts: {
      outcomeUnknown?: boolean;
      fatal?: boolean;
      hint?: string;
      noCapacity?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

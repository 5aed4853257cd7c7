/** What a provider throws. `outcomeUnknown: true` means a create may have happened anyway (a
 *  timeout, a 5xx after sending): look the label up before retrying. `fatal: true` means the
 *  lease can never become usable. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly opts: { outcomeUnknown?: boolean; fatal?: boolean; hint?: string } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

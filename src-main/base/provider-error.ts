/** What a provider throws. `outcomeUnknown: true` means a create may have happened anyway (a
 *  timeout, a 5xx after sending): look the label up before retrying. `fatal: true` means the
 *  lease can never become usable. `noCapacity: true` means nothing matching the shape can be
 *  rented there now (no offer, out of stock, insufficient capacity): a pool that names
 *  several providers tries the next one. `notTheHost: true`: no other host would do better. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly opts: {
      outcomeUnknown?: boolean;
      fatal?: boolean;
      hint?: string;
      noCapacity?: boolean;
      /** With `fatal`: the failure is not the host's, so another host would fail the same
       *  (a registry refusing the image's login): the boot is not replaced, the run fails. */
      notTheHost?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

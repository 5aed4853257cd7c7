/** Link failures in a row after which a claimed warm node counts as not answering: one
 *  may be a stale connection the link replaces at once. */
export const CLAIM_LINK_FAILURES = 2;

/** The check of a claimed warm node on the job's own link: while it runs, a dropped link
 *  or a fired switch is the check's to judge, not a lost node's. `lost` settles with the
 *  last failure's words once the link has failed `CLAIM_LINK_FAILURES` times. */
export class ClaimCheck {
  readonly lost: Promise<string>;
  private failures = 0;
  private settle!: (reason: string) => void;

  constructor() {
    this.lost = new Promise((r) => (this.settle = r));
  }

  linkLost(detail: string): void {
    if (++this.failures >= CLAIM_LINK_FAILURES) this.settle(detail);
  }
}

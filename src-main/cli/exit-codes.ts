/** `tender` exit codes (README): the contract scripts and CI depend on. */
export const EXIT = {
  ok: 0,
  jobFailed: 1,
  badInput: 2,
  infrastructure: 3,
} as const;

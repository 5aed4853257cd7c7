import { TenderError } from '../../core/tender-error';

/** A positive number given on the command line (an integer when `integer`), or bad input. */
export function positiveNumber(flag: string, raw: string, integer = false): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new TenderError(
      'bad_input',
      `${flag} must be a positive ${integer ? 'whole ' : ''}number, not "${raw}"`,
    );
  }
  return n;
}

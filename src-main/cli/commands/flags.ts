import { parseDuration } from '../../contract/policy';
import { TenderError } from '../../base/tender-error';

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

/** A duration given on the command line ("90s", "20m", "6h", "1h30m"; "none" when
 *  `allowNone`), in ms, or bad input. */
export function durationFlag(flag: string, raw: string, allowNone: boolean): number | null {
  const ms = parseDuration(raw);
  if (ms === undefined || (ms === null && !allowNone)) {
    throw new TenderError(
      'bad_input',
      `${flag} must be a duration such as 90s, 20m, 6h or 1h30m${allowNone ? ' (or none)' : ''}, not "${raw}"`,
    );
  }
  return ms;
}

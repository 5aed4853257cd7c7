/** Where in a file a piece of input was found; line and column count from 1. */
export interface SourcePos {
  line: number;
  column: number;
}

export interface BadInputDetails {
  /** The fix, in a sentence, when the message alone may not say it. */
  hint?: string;
  file?: string;
  line?: number;
  column?: number;
  cause?: unknown;
}

/**
 * Input a person wrote (a job file, a form, a flag) that Tender cannot use. The message is
 * one line, prefixed `file:line:col:` when a position is known, so editors and terminals can
 * jump to it; the transports carry `code`, `message` and `hint` as data.
 */
export class BadInputError extends Error {
  override readonly name = 'BadInputError';
  readonly code = 'bad_input';
  hint?: string;
  file?: string;
  line?: number;
  column?: number;

  constructor(message: string, details: BadInputDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.hint = details.hint;
    this.file = details.file;
    this.line = details.line;
    this.column = details.column;
  }

  /** Builds the error with the `file:line:col:` prefix the message contract asks for. */
  static at(
    file: string | undefined,
    pos: SourcePos | undefined,
    text: string,
    hint?: string,
  ): BadInputError {
    const where =
      file === undefined ? '' : pos ? `${file}:${pos.line}:${pos.column}: ` : `${file}: `;
    return new BadInputError(`${where}${text}`, { hint, file, ...pos });
  }
}

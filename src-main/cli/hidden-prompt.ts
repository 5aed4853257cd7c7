// Asks for a secret on the terminal without echoing it (the way ssh asks for a passphrase).
import { TenderError } from '../base/tender-error';

/** A prompt for secret values, or undefined when stdin or stderr is not a terminal (a
 *  script, a pipe: nobody to ask). */
export function terminalPrompt(
  stdin: NodeJS.ReadStream = process.stdin,
  stderr: NodeJS.WriteStream = process.stderr,
): ((name: string) => Promise<string>) | undefined {
  if (!stdin.isTTY || !stderr.isTTY) return undefined;
  return (name) => readHidden(stdin, stderr, `${name} (secret, not shown): `);
}

function readHidden(
  stdin: NodeJS.ReadStream,
  stderr: NodeJS.WriteStream,
  question: string,
): Promise<string> {
  // Echo off before the question shows: a value typed or pasted the moment it appears
  // would otherwise be echoed by the terminal (CI: the e2e's answer was).
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    // Raw mode: every key arrives as typed; a paste arrives whole, its line end included.
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || (ch === '\u0004' && value === ''))
          return done(new TenderError('bad_input', 'no value given: the prompt was interrupted'));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch === '\u0015')
          value = ''; // Ctrl-U
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

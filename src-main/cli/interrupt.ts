import { createInterface } from 'node:readline';
import { info } from './output';

/** First Ctrl-C asks: cancel the job (and tear down) or detach (leave it running). A second
 *  Ctrl-C while asking cancels. No answer possible (stdin closed) means cancel: nothing is
 *  left billing unless the user chose so. */
export function askOnInterrupt(h: { onCancel: () => void; onDetach: () => void }): () => void {
  let asking = false;
  let done = false;
  const decide = (choice: 'cancel' | 'detach' | 'continue') => {
    asking = false;
    if (choice === 'continue') return info('continuing.');
    done = true;
    if (choice === 'cancel') h.onCancel();
    else h.onDetach();
  };
  const onSigint = () => {
    if (done) return;
    if (asking) return decide('cancel');
    asking = true;
    process.stderr.write(
      '\ninterrupted: [c] cancel the job and tear down   [d] detach, leave it running   [Enter] continue\n> ',
    );
    const rl = createInterface({ input: process.stdin, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      process.stdin.destroy(); // an open stdin pipe would keep the process alive
      if (!asking) return;
      const a = line.trim().toLowerCase();
      decide(a.startsWith('d') ? 'detach' : a.startsWith('c') ? 'cancel' : 'continue');
    });
    rl.once('close', () => {
      if (!answered && asking) decide('cancel');
    });
  };
  process.on('SIGINT', onSigint);
  return () => {
    process.off('SIGINT', onSigint);
    if (process.stdin.readableFlowing !== null) process.stdin.destroy();
  };
}

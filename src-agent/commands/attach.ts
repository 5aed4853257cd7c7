// `attach --dir D`: the agent link's transport. Prints the marker, then bridges stdin to
// the socket and the socket to stdout until either side closes.
import { STREAM_MARKER } from '../wire/marker';
import { nodePaths } from '../wire/paths';
import { connect } from './socket-client';

/** Exit status when no daemon answers: the app then runs `start`. */
export const NO_DAEMON_EXIT = 3;

export async function runAttach(dir: string): Promise<number> {
  const paths = nodePaths(dir);
  const socket = await connect(paths.socket);
  if (!socket) {
    process.stderr.write(
      `tender-agent: no agent answers on ${paths.socket}; start one with \`tender-agent start --dir ${paths.dir}\`\n`,
    );
    return NO_DAEMON_EXIT;
  }
  process.stdout.write(STREAM_MARKER);
  return new Promise((resolve) => {
    let isDone = false;
    const finish = (code: number) => {
      if (isDone) return;
      isDone = true;
      process.stdin.unpipe(socket);
      process.stdin.pause();
      // stdout may still hold the socket's last bytes.
      process.stdout.write('', () => resolve(code));
    };
    socket.pipe(process.stdout, { end: false });
    process.stdin.pipe(socket); // stdin's end half-closes the socket; the daemon then answers and closes
    socket.on('close', () => finish(0));
    socket.on('error', () => finish(1));
    process.stdout.on('error', () => {
      socket.destroy();
      finish(0); // whoever reads us went away
    });
  });
}

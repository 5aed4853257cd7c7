import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import type { NodeView } from '../../../src-main/contract';
import { TerminalSession } from './terminal-session';
import { XTERM_BASE } from './xterm-theme';

type State = { kind: 'opening' } | { kind: 'open' } | { kind: 'ended'; why: string };

/** An interactive shell on a node, in its workspace. Opened when first shown; closed when
 *  the pane goes away or the shell exits ("Open again" starts a new one). */
export function NodeTerminal(props: { node: NodeView; isVisible: boolean }): React.JSX.Element {
  const { node, isVisible } = props;
  const host = useRef<HTMLDivElement>(null);
  const fitRef = useRef<(() => void) | null>(null);
  const [state, setState] = useState<State>({ kind: 'opening' });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const term = new Terminal({ ...XTERM_BASE, cursorBlink: true, scrollback: 5_000 });
    const fitAddon = new FitAddon();
    term.loadAddon(fitAddon);
    term.open(el);
    const fit = () => {
      if (el.offsetWidth > 0 && el.offsetHeight > 0) fitAddon.fit();
    };
    fit();
    fitRef.current = fit;
    setState({ kind: 'opening' });
    const session = new TerminalSession(term, {
      exit: (code) => {
        term.write(
          `\r\n\x1b[2m[the shell exited${code === null ? '' : ` with code ${code}`}]\x1b[0m\r\n`,
        );
        setState({ kind: 'ended', why: 'The shell exited.' });
      },
      error: (message) => setState({ kind: 'ended', why: message }),
    });
    void session.open(node.id).then(() => {
      if (session.isOpen) {
        setState({ kind: 'open' });
        term.focus();
      }
    });
    const data = term.onData((d) => session.input(d));
    const resized = term.onResize(({ cols, rows }) => session.resize(cols, rows));
    let frame = 0;
    const ro = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(fit);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      cancelAnimationFrame(frame);
      data.dispose();
      resized.dispose();
      session.close();
      fitRef.current = null;
      term.dispose();
    };
    // node.id only: a stage change of the same node must not reopen the shell.
  }, [node.id, generation]);

  useEffect(() => {
    if (isVisible) fitRef.current?.();
  }, [isVisible]);

  return (
    <div className="node-terminal" data-testid="node-terminal" data-node-id={node.id}>
      <div className="xterm-host" ref={host} />
      {state.kind !== 'open' && (
        <div className="terminal-state">
          {state.kind === 'opening' ? (
            <span>Opening a shell on {node.logicalId}…</span>
          ) : (
            <>
              <span>{state.why}</span>
              <button className="btn btn-sm" onClick={() => setGeneration((g) => g + 1)}>
                Open again
              </button>
            </>
          )}
        </div>
      )}
    </div>
  );
}

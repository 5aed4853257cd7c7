import type { Handlers } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { Terminals } from './terminals';

type TerminalHandlers = Pick<
  Handlers,
  'terminal.open' | 'terminal.input' | 'terminal.resize' | 'terminal.close'
>;

/** Interactive shells on nodes (the UI's xterm, `tender ssh`). */
export function terminalHandlers(d: {
  ledger: Pick<Ledger, 'getNode'>;
  terminals: Terminals;
}): TerminalHandlers {
  return {
    'terminal.open': async ({ nodeId, cols, rows, term }) => {
      const rec = d.ledger.getNode(nodeId);
      if (!rec) throw new TenderError('not_found', `no node ${nodeId}`);
      return { terminalId: await d.terminals.open(rec, { cols, rows, term }) };
    },
    'terminal.input': async ({ terminalId, data }) => {
      await d.terminals.input(terminalId, Buffer.from(data, 'base64'));
      return {};
    },
    'terminal.resize': async ({ terminalId, cols, rows }) => {
      d.terminals.resize(terminalId, cols, rows);
      return {};
    },
    'terminal.close': async ({ terminalId }) => {
      d.terminals.close(terminalId);
      return {};
    },
  };
}

import type { NodeView } from '../../../src-main/contract';

/** Why a node's Terminal cannot be opened now; null: it can (its agent is up and its lease
 *  is there). A destroyed node has no folder or machine left: a shell there would run in a
 *  deleted folder, so it is never offered. */
export function terminalWhyNot(node: Pick<NodeView, 'stage' | 'logicalId'>): string | null {
  switch (node.stage) {
    case 'dormant':
    case 'handed_off':
      return null;
    case 'destroyed':
      return `${node.logicalId} is destroyed: there is no machine left to open a shell on`;
    case 'destroying':
      return `${node.logicalId} is being destroyed: no new shell opens on it`;
    case 'released':
      return `${node.logicalId} passed its lease to a later run: open the terminal there`;
    case 'failed':
      return `${node.logicalId} failed before it could run anything: no shell to open`;
    default:
      return 'A terminal needs the node running with its agent up';
  }
}

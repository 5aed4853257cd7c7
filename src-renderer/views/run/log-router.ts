import type { LogRecord } from '../../../src-main/contract';
import { backend, subscribe } from '../../api/backend';
import { WsTenderApi } from '../../transport/ws-client';

/** What a pane's feed listens with. */
export interface NodeLogListener {
  live(records: readonly LogRecord[]): void;
  /** The connection came back: read what was sent while it was down. */
  resync(): void;
}

/**
 * One `log.lines` subscription for the Run view, handing each node's records to its pane: a batch
 * is split once, not filtered by every pane. In web mode a reconnect makes every pane read
 * what it may have missed, by seq.
 */
export class LogRouter {
  private readonly listeners = new Map<string, NodeLogListener>();
  private readonly offs: (() => void)[] = [];

  constructor() {
    this.offs.push(subscribe('log.lines', ({ records }) => this.route(records)));
    const api = backend();
    if (api instanceof WsTenderApi) {
      let wasDown = false;
      this.offs.push(
        api.onState((state) => {
          if (state !== 'open') wasDown = true;
          else if (wasDown) {
            wasDown = false;
            for (const l of this.listeners.values()) l.resync();
          }
        }),
      );
    }
  }

  listen(nodeId: string, listener: NodeLogListener): () => void {
    this.listeners.set(nodeId, listener);
    return () => {
      if (this.listeners.get(nodeId) === listener) this.listeners.delete(nodeId);
    };
  }

  close(): void {
    for (const off of this.offs.splice(0)) off();
    this.listeners.clear();
  }

  private route(records: readonly LogRecord[]): void {
    // Node ids carry their run: another run's records find no listener here.
    if (records.length === 0) return;
    const first = records[0]!.node;
    if (records.every((r) => r.node === first)) {
      this.listeners.get(first)?.live(records);
      return;
    }
    const byNode = new Map<string, LogRecord[]>();
    for (const r of records) {
      const list = byNode.get(r.node);
      if (list) list.push(r);
      else byNode.set(r.node, [r]);
    }
    for (const [node, list] of byNode) this.listeners.get(node)?.live(list);
  }
}

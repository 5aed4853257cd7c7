import type { EventName, EventPayload } from '../contract';

export type EventHandler<E extends EventName> = (payload: EventPayload<E>) => void;

/** The contract's events inside one process. Transports subscribe and forward. A throwing
 *  handler is reported and does not stop the others. */
export class EventBus {
  private readonly handlers = new Map<EventName, Set<(payload: never) => void>>();

  on<E extends EventName>(topic: E, handler: EventHandler<E>): () => void {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set();
      this.handlers.set(topic, set);
    }
    set.add(handler as (payload: never) => void);
    return () => set.delete(handler as (payload: never) => void);
  }

  emit<E extends EventName>(topic: E, payload: EventPayload<E>): void {
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        (handler as EventHandler<E>)(payload);
      } catch (err) {
        console.error(`tender: a ${topic} handler threw:`, err);
      }
    }
  }
}

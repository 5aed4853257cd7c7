import type {
  CommandInput,
  CommandName,
  CommandOutput,
  ErrorData,
  EventName,
  EventPayload,
} from '../../src-main/contract';
import type { TenderApi } from '../tender-api';

/** A contract error as a thrown value, for react-query; `hint` says what to do. */
export class ApiError extends Error {
  readonly code: ErrorData['code'];
  readonly hint: string | undefined;
  constructor(data: ErrorData) {
    super(data.message);
    this.code = data.code;
    this.hint = data.hint;
  }
}

let api: TenderApi | null = null;

/** Set once at start-up: the preload's window.tender in the app, the WebSocket in web mode. */
export function setBackend(next: TenderApi): void {
  api = next;
}

export function backend(): TenderApi {
  if (!api) throw new Error('no Tender backend is connected to this window');
  return api;
}

/** Calls a command; resolves with its value or throws an ApiError. */
export async function call<C extends CommandName>(
  command: C,
  input: CommandInput<C>,
): Promise<CommandOutput<C>> {
  const r = await backend().invoke(command, input);
  if (!r.ok) throw new ApiError(r.error);
  return r.value;
}

export function subscribe<E extends EventName>(
  topic: E,
  handler: (payload: EventPayload<E>) => void,
): () => void {
  return backend().on(topic, handler);
}

/** Any thrown value as the contract's error data (code, message, hint), for a view to show. */
export function errorData(err: unknown): ErrorData {
  if (err instanceof ApiError) return { code: err.code, message: err.message, hint: err.hint };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

/** A message for a person, with the hint when there is one. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.hint ? `${err.message}. ${err.hint}` : err.message;
  return err instanceof Error ? err.message : String(err);
}

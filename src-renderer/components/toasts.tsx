import { create } from 'zustand';

interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
}

interface ToastState {
  toasts: Toast[];
  push(text: string, kind?: Toast['kind']): void;
  dismiss(id: number): void;
}

let nextId = 1;

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  push(text, kind = 'info') {
    const id = nextId++;
    set((s) => ({ toasts: [...s.toasts, { id, text, kind }] }));
    setTimeout(() => get().dismiss(id), kind === 'error' ? 10_000 : 4_000);
  },
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
}));

/** Shows a message in the corner; errors stay longer. */
export const toast = (text: string, kind?: Toast['kind']) => useToasts.getState().push(text, kind);

export function Toasts(): React.JSX.Element {
  const { toasts, dismiss } = useToasts();
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div
          key={t.id}
          className={`toast ${t.kind}`}
          role={t.kind === 'error' ? 'alert' : 'status'}
          onClick={() => dismiss(t.id)}
        >
          {t.text}
        </div>
      ))}
    </div>
  );
}

// Short-lived error and info messages in the corner of the page.
import { signal } from '@preact/signals';

/** A button on the message, e.g. Undo after a delete. */
export interface ToastAction {
  label: string;
  run: () => void;
}

interface Toast {
  id: number;
  text: string;
  kind: 'error' | 'info';
  action?: ToastAction;
}

const toasts = signal<Toast[]>([]);
let nextId = 1;

const dismiss = (id: number) => (toasts.value = toasts.value.filter((t) => t.id !== id));

export function notify(text: string, kind: Toast['kind'] = 'error', action?: ToastAction): void {
  const id = nextId++;
  toasts.value = [...toasts.value, { id, text, kind, action }];
  // one with a button stays long enough to reach it
  window.setTimeout(() => dismiss(id), action ? 12000 : 6000);
}

export function ToastHost() {
  return (
    <div class="toasts">
      {toasts.value.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`} data-testid={`toast-${t.kind}`} role="status">
          {t.text}
          {t.action && (
            <button class="btn btn-small toast-action" data-testid="toast-action" onClick={() => { dismiss(t.id); t.action!.run(); }}>
              {t.action.label}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}

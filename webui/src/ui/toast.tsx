// Short-lived error and info messages in the corner of the page.
import { signal } from '@preact/signals';

interface Toast {
  id: number;
  text: string;
  kind: 'error' | 'info';
}

const toasts = signal<Toast[]>([]);
let nextId = 1;

export function notify(text: string, kind: Toast['kind'] = 'error'): void {
  const id = nextId++;
  toasts.value = [...toasts.value, { id, text, kind }];
  window.setTimeout(() => {
    toasts.value = toasts.value.filter((t) => t.id !== id);
  }, 6000);
}

export function ToastHost() {
  return (
    <div class="toasts">
      {toasts.value.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`} data-testid={`toast-${t.kind}`} role="status">
          {t.text}
        </div>
      ))}
    </div>
  );
}

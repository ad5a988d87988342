// Shows its children only once Monaco has loaded (load.ts): for panels that create editors and
// can be drawn, restored with the saved layout, before Monaco has arrived.
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { loadMonaco, monacoReady } from './load';

export function AfterMonaco({ children }: { children: ComponentChildren }) {
  useEffect(() => void loadMonaco(), []);
  return monacoReady.value ? <>{children}</> : <div class="panel-message">Loading the editor…</div>;
}

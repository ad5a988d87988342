// Building blocks of the result views: a row of key figures, tensor tables, collapsible sections.
import type { ComponentChildren } from 'preact';
import type { RuntimeRecord, TensorInfo } from '../../../api/tools';
import { formatShape } from '../format';

export interface Stat {
  label: string;
  value: ComponentChildren;
  testid?: string;
  tone?: 'ok' | 'bad' | 'warn';
}

export function Stats({ items }: { items: Stat[] }) {
  return (
    <div class="tool-stats">
      {items.map((s) => (
        <div key={s.label} class="tool-stat">
          <div class="tool-stat-label">{s.label}</div>
          <div class={`tool-stat-value ${s.tone ? `tone-${s.tone}` : ''}`} data-testid={s.testid}>{s.value}</div>
        </div>
      ))}
    </div>
  );
}

export function Section({ title, children, testid, open = true }: { title: ComponentChildren; children: ComponentChildren; testid?: string; open?: boolean }) {
  return (
    <details class="tool-section" open={open} data-testid={testid}>
      <summary>{title}</summary>
      <div class="tool-section-body">{children}</div>
    </details>
  );
}

export function TensorTable({ inputs, outputs }: { inputs: TensorInfo[]; outputs: TensorInfo[] }) {
  const rows = [...inputs.map((t) => ['input', t] as const), ...outputs.map((t) => ['output', t] as const)];
  return (
    <table class="tool-table" data-testid="tool-io">
      <thead><tr><th>Kind</th><th>Name</th><th>Shape</th><th>Type</th><th>Layout</th></tr></thead>
      <tbody>
        {rows.map(([kind, t]) => (
          <tr key={`${kind}:${t.name}`} data-testid={`io-${kind}`} data-name={t.name}>
            <td class="muted">{kind}</td>
            <td class="mono" data-testid="io-name">{t.name}</td>
            <td class="mono" data-testid="io-shape">{formatShape(t.shape)}</td>
            <td class="mono">{t.dtype ?? '—'}</td>
            <td class="mono">{t.layout ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where and how the model ran: "CPU · 2 threads · precision high · power normal". */
export function runtimeLine(runtime: RuntimeRecord): string {
  const threads = runtime.backend === 'CPU' ? ` · ${runtime.threads} thread${runtime.threads === 1 ? '' : 's'}` : '';
  return `on ${runtime.backend}${threads} · precision ${runtime.precision} · power ${runtime.power}`;
}

/** A list of warnings, when there are any. */
export function Warnings({ warnings, testid }: { warnings?: string[]; testid: string }) {
  if (!warnings?.length) return null;
  return (
    <Section title={`Warnings (${warnings.length})`} testid={testid}>
      <ul class="tool-warnings">{warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>
    </Section>
  );
}

/** A cell with a bar behind its value, for shares of a whole. */
export function BarCell({ share, children }: { share: number; children: ComponentChildren }) {
  return (
    <td class="tool-bar-cell">
      <span class="tool-bar" style={{ width: `${Math.max(0, Math.min(1, share)) * 100}%` }} />
      <span class="tool-bar-value">{children}</span>
    </td>
  );
}

// A backend picker that offers only the backends MNN can run where the model will run (this
// server, or a device), and says why each other one is absent (docs/model-tools.md, "Backends").
import { signal } from '@preact/signals';
import { errorMessage } from '../api/client';
import { listBackends, type MnnBackend, type MnnBackends } from '../api/tools';
import './backend.css';

export const serverBackends = signal<MnnBackends | null>(null);
export const serverBackendsError = signal<string | null>(null);
let asked = false;

/** The server's backends, asked for once per page. */
export function loadServerBackends(): void {
  if (asked) return;
  asked = true;
  listBackends().then(
    (found) => (serverBackends.value = found),
    (err) => {
      asked = false;
      serverBackendsError.value = errorMessage(err);
    },
  );
}

interface Props {
  /** null: not known (still loading, or a device that did not report them). */
  backends: MnnBackend[] | null;
  value: string;
  disabled?: boolean;
  testid: string;
  /** Said when `backends` is null. */
  unknown?: string;
  onChange: (value: string) => void;
}

export function BackendSelect({ backends, value, disabled, testid, unknown, onChange }: Props) {
  const usable = backends ? backends.filter((b) => b.available).map((b) => b.name) : ['CPU'];
  const absent = backends ? backends.filter((b) => !b.available) : [];
  const choices = usable.includes(value) || !value ? usable : [...usable, value];
  const why = absent.map((b) => `${b.name}: ${b.reason}`).join('\n');
  return (
    <span class="backend-select">
      <select data-testid={testid} value={value} disabled={disabled} title={why ? `Not available here —\n${why}` : undefined}
        onChange={(ev) => onChange(ev.currentTarget.value)}>
        {choices.map((name) => <option key={name} value={name}>{usable.includes(name) ? name : `${name} (not available)`}</option>)}
      </select>
      {absent.length > 0 && (
        <details class="backend-absent" data-testid={`${testid}-absent`}>
          <summary class="muted">{absent.length} not available here</summary>
          <ul>{absent.map((b) => <li key={b.name} data-backend={b.name}><b>{b.name}</b> — {b.reason}</li>)}</ul>
        </details>
      )}
      {!backends && unknown && <em class="muted backend-unknown" data-testid={`${testid}-unknown`}>{unknown}</em>}
    </span>
  );
}

// A device's doctor report, as its agent sent it on connecting (the same local checks as
// `python3 agent.pyz doctor` prints on the device), with the connection and the clock skew.
import type { Device, DoctorCheck } from '../../api/devices';
import { ago } from './format';

const SKEW_LIMIT = 5;

function CheckLine({ check }: { check: DoctorCheck }) {
  const mark = check.ok ? 'ok' : check.required ? 'MISSING' : 'missing';
  return (
    <li class={check.ok ? 'doctor-check ok' : 'doctor-check bad'} data-testid="doctor-check" data-name={check.name} data-ok={String(check.ok)}>
      <span class="doctor-mark">{mark}</span>
      <span class="doctor-name">{check.name}</span>
      <span class="doctor-detail">{check.detail}</span>
      {check.fix && <code class="doctor-fix">{check.fix}</code>}
    </li>
  );
}

function skewText(skew: number): string {
  const size = Math.abs(skew).toFixed(0);
  return `clock ${size} s ${skew >= 0 ? 'ahead of' : 'behind'} the workbench's${Math.abs(skew) >= SKEW_LIMIT ? ': set the device clock' : ''}`;
}

export function DoctorReport({ device }: { device: Device }) {
  const checks = device.info.checks ?? [];
  if (!checks.length) return null;
  const problems = checks.filter((c) => !c.ok);
  const skew = device.info.clock_skew;
  const summary = problems.length ? `Doctor: ${problems.map((c) => c.name).join(', ')} missing` : 'Doctor: all good';
  return (
    <details class="device-doctor" data-testid="device-doctor">
      <summary class={problems.some((c) => c.required) ? 'doctor-summary bad' : 'doctor-summary'}>{summary}</summary>
      <ul class="doctor-checks">
        {checks.map((c) => <CheckLine key={c.name} check={c} />)}
        <li class="doctor-check ok" data-testid="doctor-connection">
          <span class="doctor-mark">{device.online ? 'ok' : 'offline'}</span>
          <span class="doctor-name">server</span>
          <span class="doctor-detail">{device.online ? 'connected' : `last seen ${ago(device.last_seen)}`}</span>
        </li>
        {skew !== undefined && (
          <li class={Math.abs(skew) < SKEW_LIMIT ? 'doctor-check ok' : 'doctor-check bad'} data-testid="doctor-clock">
            <span class="doctor-mark">{Math.abs(skew) < SKEW_LIMIT ? 'ok' : 'skewed'}</span>
            <span class="doctor-name">clock</span>
            <span class="doctor-detail">{skewText(skew)}</span>
          </li>
        )}
      </ul>
    </details>
  );
}

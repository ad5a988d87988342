// The flow of the project, data to device: one row per step with its state, detail, artifact
// (its lineage on a click) and the next action, filled from the step before. Reloads when a
// job or tool run ends, the repository changes and a deploy or device benchmark is kept
// (docs/flow.md).
import { useEffect, useState } from 'preact/hooks';
import type { Budget } from '../../api/checks';
import { errorMessage } from '../../api/client';
import { getFlow, type FlowState, type FlowStep } from '../../api/flow';
import { watchDevices } from '../../kernel/devices';
import { opener } from '../../kernel/openers';
import type { PanelFactory } from '../../kernel/panels';
import { useResource } from '../../kernel/resource';
import { pid, session } from '../../kernel/session';
import { budgetsToml, runNext, withDevice } from './actions';
import './flow.css';

const ICONS: Record<FlowState, string> = { done: '✓', stale: '↻', failed: '✗', todo: '○' };
const FINAL_RUNS = ['succeeded', 'failed', 'crashed', 'cancelled'];
const FINAL_JOBS = ['succeeded', 'failed', 'stopped'];

/** Whether a project event ends something the flow reads. */
function endsSomething(channel: string, type: string, data: Record<string, unknown>): boolean {
  if (channel === 'tools') return type === 'run' && FINAL_RUNS.includes(String(data.status));
  if (channel === 'jobs' && type === 'job.marked') return true; // the train step follows the marked job
  if (channel === 'jobs') return type === 'job.status' && FINAL_JOBS.includes(String((data.job as { status?: string } | undefined)?.status));
  if (channel === 'devices') return type === 'flow.recorded';
  if (channel === 'git') return type === 'changed'; // HEAD may have moved: training code committed
  return channel === 'sys' && type === 'resync';
}

function Artifact({ step }: { step: FlowStep }) {
  const artifact = step.artifact;
  if (!artifact) return null;
  const open = () => (artifact.lineage ? opener('lineage')(artifact.path) : opener('datasets')());
  return (
    <button class="flow-artifact mono" data-testid={`flow-artifact-${step.id}`} title={artifact.sha256 ?? ''} onClick={open}>
      {artifact.path}
    </button>
  );
}

const templateBudgets = (args: Record<string, unknown>): Budget[] =>
  Array.isArray(args.budgets) ? (args.budgets as Budget[]) : [];

function StepRow({ step, reload }: { step: FlowStep; reload: () => void }) {
  const [template, setTemplate] = useState<string | null>(null);
  const next = step.next && withDevice(step.next);
  const act = () => {
    if (!next) return;
    if (next.action === 'budgets') setTemplate(template === null ? budgetsToml(next.args) : null);
    else runNext(next, reload);
  };
  return (
    <li class={`flow-step flow-${step.state}`} data-testid={`flow-step-${step.id}`} data-state={step.state}>
      <span class="flow-icon" title={step.state} aria-label={step.state}>{ICONS[step.state]}</span>
      <div class="flow-body">
        <div class="flow-head">
          <strong>{step.title}</strong> <Artifact step={step} />
        </div>
        <div class="flow-detail" data-testid={`flow-detail-${step.id}`}>{step.detail}</div>
        {template !== null && (
          <div class="flow-template">
            <pre class="mono" data-testid="flow-budget-template">
              {template || 'Nothing made yet to fill a budget from.'}
            </pre>
            <span>Add it to <span class="mono">mnnwb.toml</span>, or </span>
            <button class="btn btn-small" data-testid="flow-budgets-editor" onClick={() => opener('budgetsEditor')(templateBudgets(next?.args ?? {}))}>open it in the budgets editor</button>
          </div>
        )}
      </div>
      {next && (
        <button class="btn" data-testid={`flow-next-${step.id}`} onClick={act}>{next.label}</button>
      )}
    </li>
  );
}

function FlowPanel() {
  const { data: flow, error, reload: load } = useResource(() => getFlow(pid()), []);
  useEffect(() => watchDevices(), []); // the deploy and measure buttons name a device online
  useEffect(() => {
    return session().socket.on('*', (msg) => {
      if (endsSomething(msg.channel, msg.type, msg.data as Record<string, unknown>)) load();
    });
  }, []);
  return (
    <div class="flow-panel" data-testid="flow-panel">
      <div class="flow-toolbar">
        <span>Data to device</span>
        <button class="btn" onClick={load} data-testid="flow-reload">Reload</button>
      </div>
      {error !== null && <div class="panel-message">Cannot read the flow: {errorMessage(error)}</div>}
      {error === null && !flow && <div class="panel-message">Loading…</div>}
      {flow && (
        <ol class="flow-steps">
          {flow.steps.map((step) => <StepRow key={step.id} step={step} reload={load} />)}
        </ol>
      )}
    </div>
  );
}

export const flowPanel: PanelFactory = () => <FlowPanel />;

// The Training panel: a toolbar (new job, sweep, interpreter, PAI-DLC and Ray settings), then
// either the job list with the selected job, or the project's sweeps.
import { createPortal } from 'preact/compat';
import type { Runtime } from '../../api/jobs';
import { useEffect } from 'preact/hooks';
import { openDialog } from './dialogState';
import { InterpreterDialog } from './InterpreterDialog';
import { JobList } from './JobList';
import { JobView } from './JobView';
import { RerunDialog } from './RerunDialog';
import { NewJobDialog } from './NewJobDialog';
import { PaiSettingsDialog } from './PaiSettingsDialog';
import { RaySettingsDialog } from './RaySettingsDialog';
import { SweepDialog } from './SweepDialog';
import { view } from './sweeps';
import { SweepsView } from './SweepsView';
import { loadRuntime, runtime } from './runtime';
import { CompareView } from './CompareView';
import { compareIds, comparing, jobs, loadJobs, selectedJob } from './store';
import { isViewer, viewerReason } from '../../kernel/account';

function interpreterLabel(runtime: Runtime): string {
  if (runtime.source === 'venv') return '.venv';
  if (runtime.source === 'server') return 'server default';
  return runtime.interpreter.split('/').slice(-2).join('/');
}

function Toolbar() {
  const current = runtime.value;
  const viewer = isViewer.value;
  return (
    <div class="panel-toolbar training-toolbar">
      <button class="btn btn-small btn-primary" data-testid="job-new" disabled={viewer}
        title={viewer ? viewerReason('start jobs') : undefined} onClick={() => (openDialog.value = 'new-job')}>▶ New job</button>
      <button class="btn btn-small" data-testid="sweep-new" disabled={viewer}
        title={viewer ? viewerReason('start sweeps') : 'One job per combination of argument values'} onClick={() => (openDialog.value = 'sweep')}>▦ Sweep</button>
      <div class="segmented training-view" role="tablist">
        {(['jobs', 'sweeps'] as const).map((v) => (
          <button key={v} type="button" role="tab" aria-selected={view.value === v} class={view.value === v ? 'active' : ''}
            data-testid={`training-view-${v}`} onClick={() => (view.value = v)}>{v === 'jobs' ? 'Jobs' : 'Sweeps'}</button>
        ))}
      </div>
      <button class="btn btn-small" data-testid="jobs-compare" disabled={compareIds.value.length < 2}
        title={compareIds.value.length < 2 ? 'Tick two or more jobs to compare them' : 'Their curves overlaid and their final figures side by side'}
        onClick={() => { comparing.value = true; view.value = 'jobs'; }}>⇆ Compare{compareIds.value.length > 1 ? ` (${compareIds.value.length})` : ''}</button>
      <button class="training-interp" data-testid="interpreter-open" disabled={viewer}
        title={viewer ? viewerReason('change the interpreter') : current ? `Interpreter: ${current.interpreter}` : 'Project interpreter'}
        onClick={() => (openDialog.value = 'interpreter')}>
        <span class="muted">Python:</span> <span>{current ? interpreterLabel(current) : '…'}</span>
      </button>
      <button class="btn btn-small" title={viewer ? viewerReason('change the PAI-DLC settings') : 'PAI-DLC settings'}
        data-testid="pai-settings-open" disabled={viewer} onClick={() => (openDialog.value = 'pai-settings')}>⚙ PAI-DLC</button>
      <button class="btn btn-small" title={viewer ? viewerReason('change the Ray settings') : 'Ray cluster settings'}
        data-testid="ray-settings-open" disabled={viewer} onClick={() => (openDialog.value = 'ray-settings')}>⚙ Ray</button>
      <button class="icon-btn" title="Refresh" aria-label="Refresh" data-testid="jobs-refresh" onClick={() => void loadJobs()}>↻</button>
    </div>
  );
}

function Dialogs() {
  const which = openDialog.value;
  if (!which) return null;
  const dialogs = { 'new-job': NewJobDialog, interpreter: InterpreterDialog, 'pai-settings': PaiSettingsDialog, 'ray-settings': RaySettingsDialog, sweep: SweepDialog, rerun: RerunDialog };
  const Dialog = dialogs[which];
  const dialog = <Dialog />;
  return createPortal(dialog, document.body);
}

export function TrainingPanel() {
  useEffect(() => {
    void loadJobs();
    void loadRuntime();
  }, []);
  const job = selectedJob.value;
  const compared = compareIds.value.map((id) => jobs.value.find((j) => j.id === id)).filter((j) => j !== undefined);
  const detail = comparing.value && compared.length > 1 ? <CompareView jobs={compared} />
    : job ? <JobView key={job.id} job={job} /> : <div class="job-note">Select a job to see its log and metrics.</div>;
  return (
    <div class="training-panel" data-testid="training-panel">
      <Toolbar />
      {view.value === 'sweeps' ? <div class="training-body training-sweeps"><SweepsView /></div> : (
        <div class="training-body">
          <div class="training-jobs"><JobList /></div>
          <div class="training-detail">
            {detail}
          </div>
        </div>
      )}
      <Dialogs />
    </div>
  );
}

// One job: what ran and how it ended, stop and pull buttons, the live log and the metric charts.
import type { Job } from '../../api/jobs';
import { pull, revealFolder, stop } from './actions';
import { openDialog, rerunOf } from './dialogState';
import { backendLabel, formatBytes, jobDuration, shortCommit, shortId } from './format';
import { MarkedBadge, StatusBadge } from './JobList';
import { unmark, useModel } from './marks';
import { LogTerminal } from './LogTerminal';
import { MetricCharts } from './MetricCharts';
import { isActive, markedId, now, pulls } from './store';
import { isViewer, viewerReason } from '../../kernel/account';

function outcome(job: Job): string | null {
  if (job.reason) return job.reason;
  if (job.exit_code !== null && job.status !== 'succeeded') return `exit code ${job.exit_code}`;
  return null;
}

function PullStatus({ job }: { job: Job }) {
  const state = pulls.value[job.id];
  if (!state) return null;
  if (state.error) return <span class="job-pull-error" data-testid="pull-error" title={state.error}>{state.error}</span>;
  if (state.result) {
    const { files, folder } = state.result;
    return (
      <button class="link-btn job-pull-done" data-testid="pull-done" data-folder={folder}
        title={`Show ${folder}/ in the file tree`} onClick={() => revealFolder(folder)}>
        ✓ Pulled {files.length} file{files.length === 1 ? '' : 's'}
      </button>
    );
  }
  const progress = state.progress;
  return (
    <span class="job-pull" data-testid="pull-progress" title={progress?.path}>
      <progress max={progress?.total || 1} value={progress ? progress.done : undefined} />
      {progress ? `${formatBytes(progress.done)} / ${formatBytes(progress.total)}` : 'Pulling…'}
    </span>
  );
}

function Header({ job }: { job: Job }) {
  const duration = jobDuration(job, now.value);
  const commit = shortCommit(job.commit);
  const why = outcome(job);
  const pulling = pulls.value[job.id]?.running ?? false;
  const viewer = isViewer.value;
  return (
    <div class="job-header" data-testid="job-header" data-status={job.status}>
      <StatusBadge status={job.status} />
      <span class="job-command mono" title={job.command}>{job.command}</span>
      <span class="job-meta muted">
        <span class="mono" title={job.id}>#{shortId(job.id)}</span>
        <span>{backendLabel(job.backend)}</span>
        {commit && <span class="mono" title={job.commit ?? ''}>@{commit}</span>}
        {duration && <span>{duration}</span>}
        {why && <span class={job.status === 'failed' ? 'job-reason failed' : 'job-reason'} title={why}>{why}</span>}
      </span>
      <MarkedBadge job={job} />
      <span class="status-spacer" />
      <PullStatus job={job} />
      {!isActive(job) && (
        <button class="btn btn-small" data-testid="job-pull" disabled={pulling || viewer} onClick={() => void pull(job)}
          title={viewer ? viewerReason('pull artifacts') : `Bring the job's outputs into artifacts/${job.id}/`}>
          ⇣ Pull artifacts
        </button>
      )}
      <button class="btn btn-small" data-testid="job-rerun" disabled={viewer}
        title={viewer ? viewerReason('start jobs') : 'Run this job again, its command and environment edited'}
        onClick={() => { rerunOf.value = job.id; openDialog.value = 'rerun'; }}>↻ Run again…</button>
      {job.status === 'succeeded' && markedId.value !== job.id && (
        <button class="btn btn-small" data-testid="job-use-model" disabled={viewer}
          title={viewer ? viewerReason('choose the flow\'s model') : 'The flow continues from this job\'s model (convert takes it), not the newest job\'s'}
          onClick={() => void useModel(job)}>★ Use this model</button>
      )}
      {markedId.value === job.id && (
        <button class="btn btn-small" data-testid="job-unmark" disabled={viewer}
          title={viewer ? viewerReason('choose the flow\'s model') : 'The flow goes back to the newest successful job\'s model'}
          onClick={() => void unmark()}>Unmark</button>
      )}
      {isActive(job) && (
        <button class="btn btn-small btn-danger-ghost" data-testid="job-stop" disabled={viewer}
          title={viewer ? viewerReason('stop jobs') : undefined} onClick={() => void stop(job)}>■ Stop</button>
      )}
    </div>
  );
}

export function JobView({ job }: { job: Job }) {
  return (
    <div class="job-view" data-testid="job-view" data-job-id={job.id}>
      <Header job={job} />
      <div class="job-body">
        <LogTerminal jobId={job.id} ended={!isActive(job)} />
        <MetricCharts jobId={job.id} ended={!isActive(job)} />
      </div>
    </div>
  );
}

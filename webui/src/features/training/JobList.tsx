// The project's jobs, newest first: status badge, command, backend, commit and duration.
import type { Job, JobStatus } from '../../api/jobs';
import { backendLabel, formatAgo, jobDuration, shortCommit } from './format';
import { jobs, jobsError, loaded, now, selectedId } from './store';

const GLYPHS: Record<JobStatus, string> = { queued: '◷', running: '●', succeeded: '✓', failed: '✕', stopped: '■' };

export function StatusBadge({ status }: { status: JobStatus }) {
  return (
    <span class={`job-badge status-${status}`} data-testid="job-status" data-status={status}>
      <span class="job-badge-glyph" aria-hidden="true">{GLYPHS[status]}</span>
      {status}
    </span>
  );
}

function JobRow({ job }: { job: Job }) {
  const active = selectedId.value === job.id;
  const duration = jobDuration(job, now.value);
  const commit = shortCommit(job.commit);
  return (
    <div class={active ? 'job-row selected' : 'job-row'} role="option" aria-selected={active} tabIndex={0}
      data-testid="job-row" data-job-id={job.id} data-status={job.status}
      onClick={() => (selectedId.value = job.id)}
      onKeyDown={(ev) => ev.key === 'Enter' && (selectedId.value = job.id)}>
      <div class="job-row-main">
        <StatusBadge status={job.status} />
        <span class="job-row-command mono" title={job.command}>{job.command}</span>
      </div>
      <div class="job-row-meta">
        <span class="job-backend">{backendLabel(job.backend)}</span>
        {commit && <span class="mono" title={job.commit ?? ''}>{commit}</span>}
        {duration && <span data-testid="job-duration">{duration}</span>}
        <span class="job-row-ago">{formatAgo(job.created_at, now.value)}</span>
      </div>
    </div>
  );
}

export function JobList() {
  if (jobsError.value) return <div class="form-error job-list-error">{jobsError.value}</div>;
  if (!loaded.value) return <div class="job-note">Loading…</div>;
  if (jobs.value.length === 0) return <div class="job-note" data-testid="jobs-empty">No jobs yet. Start one with <b>New job</b>.</div>;
  return (
    <div class="job-list" role="listbox" aria-label="Jobs" data-testid="job-list">
      {jobs.value.map((job) => <JobRow key={job.id} job={job} />)}
    </div>
  );
}

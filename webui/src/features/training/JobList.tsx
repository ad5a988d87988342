// The project's jobs, newest first: status badge, command, backend, commit and duration; a box
// to tick each for Compare, and a star on the job whose model the flow continues from.
import type { Job, JobStatus } from '../../api/jobs';
import { backendLabel, formatAgo, jobDuration, shortCommit } from './format';
import { compareIds, comparing, jobs, jobsError, loaded, markedId, now, selectedId } from './store';

const GLYPHS: Record<JobStatus, string> = { queued: '◷', running: '●', succeeded: '✓', failed: '✕', stopped: '■' };

export function StatusBadge({ status }: { status: JobStatus }) {
  return (
    <span class={`job-badge status-${status}`} data-testid="job-status" data-status={status}>
      <span class="job-badge-glyph" aria-hidden="true">{GLYPHS[status]}</span>
      {status}
    </span>
  );
}

export function MarkedBadge({ job }: { job: Job }) {
  if (markedId.value !== job.id) return null;
  return <span class="job-marked" data-testid="job-marked" title="The flow continues from this job's model">★ flow's model</span>;
}

function toggleCompare(id: string, on: boolean): void {
  const rest = compareIds.value.filter((j) => j !== id);
  compareIds.value = on ? [...rest, id] : rest;
}

function JobRow({ job }: { job: Job }) {
  const active = selectedId.value === job.id;
  const ticked = compareIds.value.includes(job.id);
  const duration = jobDuration(job, now.value);
  const commit = shortCommit(job.commit);
  return (
    <div class={active ? 'job-row selected' : 'job-row'} role="option" aria-selected={active} tabIndex={0}
      data-testid="job-row" data-job-id={job.id} data-status={job.status}
      onClick={() => { selectedId.value = job.id; comparing.value = false; }}
      onKeyDown={(ev) => ev.key === 'Enter' && (selectedId.value = job.id)}>
      <div class="job-row-main">
        <input type="checkbox" class="job-compare-check" data-testid="job-compare-check" checked={ticked}
          title="Compare with the other ticked jobs" aria-label={`Compare job ${job.id.slice(0, 8)}`}
          onClick={(ev) => ev.stopPropagation()} onChange={(ev) => toggleCompare(job.id, ev.currentTarget.checked)} />
        <StatusBadge status={job.status} />
        <span class="job-row-command mono" title={job.command}>{job.command}</span>
        <MarkedBadge job={job} />
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

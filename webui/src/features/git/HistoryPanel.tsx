// The history: commits newest first beside a lane graph, labelled with the branches, remote
// branches and tags on them (and HEAD when detached); a click shows the commit's message and
// files, and a file opens its diff against the commit's parent; the commit can be cherry-picked,
// reverted or tagged.
import type { ComponentChild } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getCommit, getLog, listRefs, type CommitDetail, type CommitInfo, type RefLabel } from '../../api/git';
import { CheckBadge } from '../checks/CheckBadge';
import { loadCommitChecks } from '../checks/store';
import { pid } from '../../kernel/session';
import { badgeFor } from './badges';
import { GraphCell } from './GraphCell';
import { childrenFirst, laneCount, layoutGraph } from './graph';
import { historyCommit, openDiff } from './open';
import { busy, status } from '../../kernel/gitStore';
import { createTag, pickCommit } from './actions';
import { isViewer } from '../../kernel/account';

const LOG_LIMIT = 300;

function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function CommitFiles({ sha }: { sha: string }) {
  const [detail, setDetail] = useState<CommitDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setDetail(null);
    getCommit(pid(), sha).then(setDetail, (err) => setError(errorMessage(err)));
  }, [sha]);
  if (error) return <div class="form-error">{error}</div>;
  if (!detail) return <div class="muted scm-empty">Loading…</div>;
  return (
    <div class="scm-commit-detail" data-testid="git-commit-detail" data-sha={detail.sha}>
      <div class="scm-commit-meta">
        <span class="mono">{detail.sha.slice(0, 10)}</span> · {detail.author} &lt;{detail.author_email}&gt; · {when(detail.time)}
      </div>
      {!isViewer.value && (
        <div class="scm-commit-actions">
          <button class="btn btn-small" data-testid="git-cherry-pick" disabled={busy.value !== null || detail.parents.length > 1}
            title="Apply this commit's change on top of the current branch" onClick={() => void pickCommit(detail.sha, false)}>Cherry-pick</button>
          <button class="btn btn-small" data-testid="git-revert" disabled={busy.value !== null || detail.parents.length !== 1}
            title="Commit the opposite of this commit's change" onClick={() => void pickCommit(detail.sha, true)}>Revert</button>
          <button class="btn btn-small" data-testid="git-tag-create" disabled={busy.value !== null}
            title="Create a tag at this commit" onClick={() => void createTag(detail.sha)}>Tag…</button>
        </div>
      )}
      <pre class="scm-commit-message">{detail.message.trim()}</pre>
      {detail.files.map((f) => {
        const badge = badgeFor('staged', f.kind);
        return (
          <div key={f.path} class="scm-row" data-testid="git-commit-file" data-path={f.path} tabIndex={0}
            onClick={() => openDiff({ path: f.path, sha: detail.sha })}
            onKeyDown={(ev) => ev.key === 'Enter' && openDiff({ path: f.path, sha: detail.sha })}>
            <span class={`scm-name kind-${badge.letter}`}>{f.path}</span>
            <span class="scm-dir" />
            <span class={`scm-badge kind-${badge.letter}`} title={badge.label}>{badge.letter}</span>
          </div>
        );
      })}
    </div>
  );
}

function RefPills({ refs, current }: { refs: RefLabel[]; current: string | null }) {
  return (
    <>
      {refs.map((r) => {
        const kind = r.kind === 'branch' && r.name === current ? 'head' : r.kind;
        return (
          <span key={`${r.kind}:${r.name}`} class={`scm-ref kind-${kind}`} data-testid="git-ref-label" data-kind={r.kind}
            title={r.kind === 'tag' ? `tag ${r.name}` : r.name}>
            {r.kind === 'tag' ? `⌂ ${r.name}` : r.name}
          </span>
        );
      })}
    </>
  );
}

/** Labels by commit; HEAD itself only when detached (otherwise its branch is highlighted). */
function labelsByCommit(refs: RefLabel[], detached: boolean): Map<string, RefLabel[]> {
  const byCommit = new Map<string, RefLabel[]>();
  for (const r of refs) {
    if (r.kind === 'head' && !detached) continue;
    byCommit.set(r.commit, [...(byCommit.get(r.commit) ?? []), r]);
  }
  return byCommit;
}

function LogRow(props: {
  commit: CommitInfo; lane: number; cell: ComponentChild; selected: boolean; onSelect: () => void; labels: ComponentChild;
}) {
  const { commit } = props;
  return (
    <div class={props.selected ? 'scm-log-row selected' : 'scm-log-row'} data-testid="git-commit" data-sha={commit.sha} data-lane={props.lane}
      tabIndex={0} onClick={props.onSelect} onKeyDown={(ev) => ev.key === 'Enter' && props.onSelect()}>
      {props.cell}
      <CheckBadge sha={commit.sha} />
      {props.labels}
      <span class="scm-log-summary" title={commit.message}>{commit.summary}</span>
      <span class="scm-log-author">{commit.author}</span>
      <span class="scm-log-date">{when(commit.time)}</span>
      <span class="mono scm-log-sha">{commit.sha.slice(0, 7)}</span>
    </div>
  );
}

export function HistoryPanel() {
  const [log, setLog] = useState<CommitInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const picked = historyCommit.value;
  useEffect(() => setSelected(picked ?? null), [picked]);
  const [refs, setRefs] = useState<RefLabel[]>([]);
  const head = status.value?.head ?? null;
  const branch = status.value?.branch ?? null;
  const [all, setAll] = useState(false);
  useEffect(() => {
    getLog(pid(), LOG_LIMIT, 0, all).then((list) => { setLog(childrenFirst(list)); setError(null); }, (err) => setError(errorMessage(err)));
    void loadCommitChecks();
  }, [head, branch, all]);
  // Labels change without HEAD moving (a tag made or deleted, a fetch): read them on every refresh.
  const version = status.value;
  useEffect(() => {
    listRefs(pid()).then(setRefs, (err) => setError(errorMessage(err)));
  }, [version]);
  const labels = useMemo(() => labelsByCommit(refs, branch === null), [refs, branch]);
  const rows = useMemo(() => layoutGraph(log ?? []), [log]);
  const lanes = laneCount(rows);
  if (error) return <div class="panel-message" data-testid="git-history-error">{error}</div>;
  if (!log) return <div class="panel-message">Loading…</div>;
  return (
    <div class="scm-history" data-testid="git-history">
      <div class="scm-history-scope" role="radiogroup" aria-label="Which history">
        {([[false, 'Current branch'], [true, 'All branches']] as const).map(([value, label]) => (
          <label key={label} data-testid={value ? 'history-all' : 'history-current'}>
            <input type="radio" name="history-scope" checked={all === value} onChange={() => setAll(value)} /> {label}
          </label>
        ))}
      </div>
      <div class="scm-log">
        {log.length === 0 && <div class="panel-message">No commits yet.</div>}
        {log.map((c, i) => (
          <LogRow key={c.sha} commit={c} lane={rows[i].lane} selected={c.sha === selected} onSelect={() => setSelected(c.sha)}
            labels={labels.has(c.sha) && <RefPills refs={labels.get(c.sha) ?? []} current={branch} />}
            cell={<GraphCell row={rows[i]} sha={c.sha} lanes={lanes} />} />
        ))}
      </div>
      {selected && <CommitFiles sha={selected} />}
    </div>
  );
}

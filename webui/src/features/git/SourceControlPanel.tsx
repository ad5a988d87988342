// The Source Control panel: a toolbar (history, pull, push, more), the commit box, the changed
// files grouped by state, and the stash list — compact, like VS Code's side bar view.
import { useEffect, useState } from 'preact/hooks';
import { getLog, type SyncOp } from '../../api/git';
import { openContextMenu } from '../../ui/contextMenu';
import { commit, createTag, initRepository, startTracking, stashPush, syncOp } from './actions';
import { askMerge } from './commands';
import { ChangeGroup, type GroupSpec } from './ChangeGroup';
import { askIdentity, showRemotes } from './dialogs';
import { activePath } from '../../kernel/active';
import { notify } from '../../ui/toast';
import { openBlame, openHistory } from './open';
import { ChecksSection } from '../checks/ChecksSection';
import { StashList } from './StashList';
import { busy, draftMessage, progress, refresh, repoError, repoState, status, syncNow } from '../../kernel/gitStore';
import { pid } from '../../kernel/session';
import { isViewer, viewerReason } from '../../kernel/account';

function ToolButton(props: { label: string; glyph: string; testid: string; onClick: (ev: MouseEvent) => void; disabled?: boolean; reason?: string }) {
  return (
    <button class="icon-btn" title={props.reason ?? props.label} aria-label={props.label} data-testid={props.testid}
      disabled={props.disabled || props.reason !== undefined} onClick={props.onClick}>
      {props.glyph}
    </button>
  );
}

const sync = (op: SyncOp) => void syncOp(op);

function blameActive(): void {
  const path = activePath.value;
  if (path) openBlame(path);
  else notify('Open a file first: blame shows who last changed each of its lines.');
}

function moreMenu(ev: MouseEvent): void {
  const writes = isViewer.value ? [] : [
    { label: 'Fetch', testid: 'scm-fetch', action: () => sync('fetch') },
    { label: 'Remotes…', testid: 'scm-remotes', action: showRemotes },
    { label: 'Stash changes…', testid: 'scm-stash', action: () => void stashPush() },
    { label: 'Merge a branch…', testid: 'scm-merge', action: () => void askMerge() },
    { label: 'Create tag at HEAD…', testid: 'scm-tag', action: () => void createTag(null) },
  ];
  openContextMenu(ev, [
    ...writes,
    { label: 'Your identity…', testid: 'scm-identity', action: () => void askIdentity() },
    { label: 'Blame the active file', testid: 'scm-blame', action: blameActive },
    { label: 'Refresh', testid: 'scm-refresh', action: () => void refresh() },
  ]);
}

function Toolbar() {
  const ready = repoState.value === 'ready';
  const working = busy.value !== null;
  const viewer = isViewer.value;
  return (
    <div class="panel-toolbar">
      <span class="panel-toolbar-title">Source Control</span>
      <ToolButton label="History" glyph="◷" testid="scm-history" disabled={!ready} onClick={openHistory} />
      <ToolButton label="Pull" glyph="↓" testid="scm-pull" disabled={!ready || working} onClick={() => sync('pull')}
        reason={viewer ? viewerReason('pull') : undefined} />
      <ToolButton label="Push" glyph="↑" testid="scm-push" disabled={!ready || working} onClick={() => sync('push')}
        reason={viewer ? viewerReason('push') : undefined} />
      <ToolButton label="More actions" glyph="⋯" testid="scm-more" disabled={!ready} onClick={moreMenu} />
    </div>
  );
}

function Progress() {
  if (!busy.value) return <div class="scm-progress idle" />;
  return (
    <>
      <div class="scm-progress" role="progressbar" aria-label={busy.value} />
      <div class="scm-progress-text" data-testid="scm-busy">{busy.value}{progress.value ? ` ${progress.value}` : ''}</div>
    </>
  );
}

function CommitBox() {
  const [message, setMessage] = useState('');
  const [amend, setAmend] = useState(false);
  const draft = draftMessage.value;
  useEffect(() => {
    if (draft === null) return;
    setMessage((current) => current || draft);
    draftMessage.value = null;
  }, [draft]);
  const staged = status.value?.staged.length ?? 0;
  const branch = status.value?.branch;
  const hasHead = Boolean(status.value?.head);
  // Amending may only reword the last commit, so it needs no staged change.
  const disabled = (staged === 0 && !amend) || !message.trim() || busy.value !== null;
  const hint = staged === 0 && !amend ? 'Stage changes to commit them.' : !message.trim() ? 'Type a commit message.' : '';
  const submit = async () => {
    if (disabled) return;
    if (await commit(message.trim(), amend)) {
      setMessage('');
      setAmend(false);
    }
  };
  const toggleAmend = async (on: boolean) => {
    setAmend(on);
    if (!on || message.trim()) return;
    const [last] = await getLog(pid(), 1).catch(() => []);
    if (last) setMessage((current) => current || last.message.trimEnd());
  };
  return (
    <div class="scm-commit">
      <textarea class="scm-message" data-testid="scm-message" rows={2} value={message}
        placeholder={`Message (Ctrl+Enter to commit${branch ? ` on "${branch}"` : ''})`}
        onInput={(ev) => setMessage(ev.currentTarget.value)}
        onKeyDown={(ev) => {
          if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
            ev.preventDefault();
            void submit();
          }
        }} />
      <button class="btn btn-primary scm-commit-btn" data-testid="scm-commit" disabled={disabled} title={hint || 'Commit the staged changes'}
        onClick={() => void submit()}>
        ✓ {amend ? 'Amend' : 'Commit'}
      </button>
      <label class="checkbox scm-amend" title="Replace the last commit with the staged changes and this message">
        <input type="checkbox" data-testid="scm-amend" checked={amend} disabled={!hasHead}
          onChange={(ev) => void toggleAmend(ev.currentTarget.checked)} />
        Amend last commit
      </label>
      {staged === 0 && !amend && <div class="scm-hint" data-testid="scm-commit-hint">{hint}</div>}
    </div>
  );
}

function Changes() {
  const [closed, setClosed] = useState<ReadonlySet<string>>(new Set());
  const st = status.value;
  if (!st) return null;
  const groups: GroupSpec[] = [
    { id: 'conflicted', title: 'Merge Changes', files: st.conflicted },
    { id: 'staged', title: 'Staged Changes', files: st.staged },
    { id: 'unstaged', title: 'Changes', files: st.unstaged },
    { id: 'untracked', title: 'Untracked', files: st.untracked },
  ];
  const toggle = (id: string) => {
    const next = new Set(closed);
    if (!next.delete(id)) next.add(id);
    setClosed(next);
  };
  if (groups.every((g) => g.files.length === 0)) return <div class="scm-empty" data-testid="scm-clean">No changes.</div>;
  return (
    <div role="tree">
      {groups.map((g) => <ChangeGroup key={g.id} spec={g} open={!closed.has(g.id)} onToggle={() => toggle(g.id)} />)}
    </div>
  );
}

function NoRepository() {
  return (
    <div class="scm-empty" data-testid="scm-no-repo">
      <p>This project is not a Git repository yet.</p>
      <button class="btn btn-primary" data-testid="scm-start-tracking" disabled={busy.value !== null || isViewer.value}
        title={isViewer.value ? viewerReason('start tracking with Git') : 'A repository with a first commit of the files (outputs/ and other ignored files left out)'}
        onClick={() => void startTracking()}>
        Start tracking with Git
      </button>
      <button class="btn" data-testid="scm-init" disabled={busy.value !== null || isViewer.value}
        title={isViewer.value ? viewerReason('initialize a repository') : 'An empty repository: stage and commit yourself'} onClick={() => void initRepository()}>
        Initialize empty repository
      </button>
    </div>
  );
}

function Body() {
  const state = repoState.value;
  if (state === 'loading') return <div class="scm-empty">Loading…</div>;
  if (state === 'none') return <NoRepository />;
  if (state === 'error') return <div class="form-error scm-error" data-testid="scm-error">{repoError.value}</div>;
  return (
    <>
      {isViewer.value
        ? <div class="scm-hint scm-viewer" data-testid="scm-viewer">{viewerReason('stage, commit, pull or push')}</div>
        : <CommitBox />}
      <Changes />
      <ChecksSection />
      <StashList />
    </>
  );
}

export function SourceControlPanel() {
  useEffect(syncNow, []);
  return (
    <div class="scm-panel" data-testid="scm-panel" data-state={repoState.value}>
      <Toolbar />
      <Progress />
      <div class="scm-body">
        <Body />
      </div>
    </div>
  );
}

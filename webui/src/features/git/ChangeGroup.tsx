// One group of changed files (Staged, Changes, Untracked, Conflicted): a header with the group's
// actions and a compact row per file with its state badge and hover actions.
import { useState } from 'preact/hooks';
import type { GitFileChange } from '../../api/git';
import { openEditor } from '../../kernel/editor';
import { discard, stage, unstage } from './actions';
import { openDiff, openMerge } from './open';
import { badgeFor, type GroupId } from './badges';
import { isViewer } from '../../kernel/account';

// Rows drawn per group until asked for all: a generated folder of thousands of files would
// otherwise make every status refresh redraw them all.
const SHOWN_ROWS = 500;

export interface GroupSpec {
  id: GroupId;
  title: string;
  files: GitFileChange[];
}

function Action(props: { label: string; glyph: string; testid: string; onClick: () => void }) {
  return (
    <button class="icon-btn" title={props.label} aria-label={props.label} data-testid={props.testid}
      onClick={(ev) => { ev.stopPropagation(); props.onClick(); }}>
      {props.glyph}
    </button>
  );
}

function actionsFor(group: GroupId, files: GitFileChange[], testPrefix: string) {
  const row = testPrefix === 'scm-';
  const canOpen = row && files[0].kind !== 'deleted';
  const open = canOpen && <Action label="Open file" glyph="↗" testid={`${testPrefix}open`} onClick={() => openEditor(files[0].path, { preview: true })} />;
  if (isViewer.value) return <span class="scm-actions">{open}</span>;
  return (
    <span class="scm-actions">
      {open}
      {(group === 'unstaged' || group === 'untracked') && (
        <Action label={group === 'untracked' ? 'Delete' : 'Discard changes'} glyph="↶" testid={`${testPrefix}discard`}
          onClick={() => void discard(files, group === 'untracked')} />
      )}
      {group === 'staged'
        ? <Action label="Unstage" glyph="−" testid={`${testPrefix}unstage`} onClick={() => void unstage(files)} />
        : <Action label={group === 'conflicted' ? 'Mark resolved (stage)' : 'Stage'} glyph="+" testid={`${testPrefix}stage`} onClick={() => void stage(files)} />}
    </span>
  );
}

function select(group: GroupId, file: GitFileChange): void {
  // A conflicted file is resolved in the merge editor (theirs, base, ours and the result).
  if (group === 'conflicted') openMerge(file.path);
  else openDiff({ path: file.path, staged: group === 'staged' });
}

function FileRow({ group, file }: { group: GroupId; file: GitFileChange }) {
  const badge = badgeFor(group, file.kind);
  const slash = file.path.lastIndexOf('/');
  const name = file.path.slice(slash + 1);
  const dir = slash > 0 ? file.path.slice(0, slash) : '';
  return (
    <div class="scm-row" role="treeitem" tabIndex={0} title={file.old_path ? `${file.old_path} → ${file.path}` : file.path}
      data-testid="scm-file" data-group={group} data-path={file.path}
      onClick={() => select(group, file)} onKeyDown={(ev) => ev.key === 'Enter' && select(group, file)}>
      <span class={`scm-name kind-${badge.letter}`}>{name}</span>
      <span class="scm-dir">{dir}</span>
      {actionsFor(group, [file], 'scm-')}
      <span class={`scm-badge kind-${badge.letter}`} title={badge.label} data-testid="scm-badge">{badge.letter}</span>
    </div>
  );
}

export function ChangeGroup({ spec, open, onToggle }: { spec: GroupSpec; open: boolean; onToggle: () => void }) {
  const [all, setAll] = useState(false);
  if (spec.files.length === 0) return null;
  const shown = all ? spec.files : spec.files.slice(0, SHOWN_ROWS);
  const hidden = spec.files.length - shown.length;
  return (
    <div class="scm-group" role="group" data-testid="scm-group" data-group={spec.id}>
      <div class="scm-group-header" onClick={onToggle}>
        <span class={open ? 'twisty open' : 'twisty'} aria-hidden="true" />
        <span class="scm-group-title">{spec.title}</span>
        {actionsFor(spec.id, spec.files, 'scm-group-')}
        <span class="scm-count">{spec.files.length}</span>
      </div>
      {open && shown.map((f) => <FileRow key={f.path} group={spec.id} file={f} />)}
      {open && hidden > 0 && (
        <button class="scm-more" data-testid="scm-show-all" onClick={() => setAll(true)}>
          {hidden.toLocaleString()} more — show all
        </button>
      )}
    </div>
  );
}

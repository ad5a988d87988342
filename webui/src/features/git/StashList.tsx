// The stash list at the foot of the Source Control panel: apply, pop or drop each entry. A stash
// that cannot be applied cleanly stays where it is; the files in the way are listed.
import { useState } from 'preact/hooks';
import type { StashEntry } from '../../api/git';
import { stashApply, stashDrop, stashPush } from './actions';
import { stashes } from '../../kernel/gitStore';
import { isViewer } from '../../kernel/account';

function StashRow({ entry }: { entry: StashEntry }) {
  const label = entry.message || `stash@{${entry.index}}`;
  return (
    <div class="scm-row" data-testid="scm-stash-entry" data-index={entry.index} title={`stash@{${entry.index}} ${entry.commit.slice(0, 7)}`}>
      <span class="scm-name">{label}</span>
      <span class="scm-dir">stash@{`{${entry.index}}`}</span>
      {!isViewer.value && <span class="scm-actions">
        <button class="icon-btn" title="Apply" aria-label="Apply" data-testid="scm-stash-apply" onClick={() => void stashApply(entry.index, false)}>⤓</button>
        <button class="icon-btn" title="Pop (apply and drop)" aria-label="Pop" data-testid="scm-stash-pop" onClick={() => void stashApply(entry.index, true)}>⇡</button>
        <button class="icon-btn" title="Drop" aria-label="Drop" data-testid="scm-stash-drop" onClick={() => void stashDrop(entry.index, label)}>×</button>
      </span>}
    </div>
  );
}

export function StashList() {
  const [open, setOpen] = useState(true);
  const list = stashes.value;
  return (
    <div class="scm-group scm-stashes" data-testid="scm-stashes">
      <div class="scm-group-header" onClick={() => setOpen(!open)}>
        <span class={open ? 'twisty open' : 'twisty'} aria-hidden="true" />
        <span class="scm-group-title">Stashes</span>
        {!isViewer.value && <span class="scm-actions">
          <button class="icon-btn" title="Stash changes…" aria-label="Stash changes" data-testid="scm-stash-push"
            onClick={(ev) => { ev.stopPropagation(); void stashPush(); }}>+</button>
        </span>}
        <span class="scm-count">{list.length}</span>
      </div>
      {open && list.map((s) => <StashRow key={s.commit} entry={s} />)}
    </div>
  );
}

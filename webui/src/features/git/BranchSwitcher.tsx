// The status bar's branch switcher: the current branch; a click lists the branches with
// ahead/behind, then remote branches (switching to one makes its tracking branch) and tags
// (switching to one detaches HEAD); it switches, creates, merges into the current branch and deletes. Mounting it starts the tab's Git status sync (and hosts the
// Git dialogs), so the status is live even while the Source Control panel is closed.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { listBranches, listRefs, type Branch, type RefLabel } from '../../api/git';
import { promptDialog } from '../../ui/dialogs';
import { checkout, createBranch, deleteBranch, deleteTag, mergeBranch, pushTag } from './actions';
import { GitDialogHost } from './dialogs';
import { busy, repoState, startGitSync, status } from '../../kernel/gitStore';
import { pid } from '../../kernel/session';
import { isViewer, viewerReason } from '../../kernel/account';

interface ItemProps {
  branch: Branch;
  onPick: (name: string) => void;
  onDelete: (name: string) => void;
  onMerge: (name: string) => void;
  into: string | null;
}

function BranchItem({ branch, onPick, onDelete, onMerge, into }: ItemProps) {
  return (
    <li role="menuitem" class={branch.current ? 'current' : undefined} data-testid="branch-item" data-name={branch.name}
      onClick={() => onPick(branch.name)}>
      <span class="branch-check">{branch.current ? '✓' : ''}</span>
      <span class="branch-name">{branch.name}</span>
      <span class="branch-track muted" title={branch.upstream ? `tracking ${branch.upstream}` : 'no upstream'}>
        {branch.upstream ? `↑${branch.ahead} ↓${branch.behind}` : ''}
      </span>
      {!branch.current && into !== null && (
        <button class="icon-btn branch-merge" title={`Merge ${branch.name} into ${into}`} aria-label={`Merge ${branch.name} into ${into}`}
          data-testid="branch-merge" onClick={(ev) => { ev.stopPropagation(); onMerge(branch.name); }}>
          ⤵
        </button>
      )}
      {!branch.current && (
        <button class="icon-btn branch-delete" title={`Delete ${branch.name}`} aria-label={`Delete ${branch.name}`}
          data-testid="branch-delete" onClick={(ev) => { ev.stopPropagation(); onDelete(branch.name); }}>
          ×
        </button>
      )}
    </li>
  );
}

interface TagActions {
  onPush: (name: string) => void;
  onDelete: (name: string) => void;
}

function RefSection({ title, refs, onPick, tags }: { title: string; refs: RefLabel[]; onPick: (name: string) => void; tags?: TagActions }) {
  if (refs.length === 0) return null;
  return (
    <>
      <div class="branch-section muted">{title}</div>
      <ul>
        {refs.map((r) => (
          <li key={r.name} role="menuitem" data-testid="ref-item" data-kind={r.kind} data-name={r.name} onClick={() => onPick(r.name)}>
            <span class="branch-check">{r.kind === 'tag' ? '⌂' : ''}</span>
            <span class="branch-name">{r.name}</span>
            <span class="branch-track muted mono">{r.commit.slice(0, 7)}</span>
            {tags && (
              <>
                <button class="icon-btn branch-merge" title={`Push ${r.name}`} aria-label={`Push ${r.name}`} data-testid="tag-push"
                  onClick={(ev) => { ev.stopPropagation(); tags.onPush(r.name); }}>↑</button>
                <button class="icon-btn branch-delete" title={`Delete ${r.name}`} aria-label={`Delete ${r.name}`} data-testid="tag-delete"
                  onClick={(ev) => { ev.stopPropagation(); tags.onDelete(r.name); }}>×</button>
              </>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

function BranchMenu({ onClose }: { onClose: () => void }) {
  const [list, setList] = useState<Branch[] | null>(null);
  const [refs, setRefs] = useState<RefLabel[]>([]);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    listBranches(pid()).then(setList, (err) => setError(errorMessage(err)));
    listRefs(pid()).then(setRefs, (err) => setError(errorMessage(err)));
    const away = (ev: PointerEvent) => !box.current?.contains(ev.target as Node) && onClose();
    const esc = (ev: KeyboardEvent) => ev.key === 'Escape' && onClose();
    window.addEventListener('pointerdown', away);
    window.addEventListener('keydown', esc);
    return () => {
      window.removeEventListener('pointerdown', away);
      window.removeEventListener('keydown', esc);
    };
  }, []);
  const pick = (name: string) => {
    onClose();
    if (name !== status.value?.branch) void checkout(name);
  };
  const merge = (name: string) => {
    onClose();
    void mergeBranch(name);
  };
  const remove = (name: string) => {
    onClose();
    void deleteBranch(name);
  };
  const create = async () => {
    onClose();
    const name = await promptDialog('Create branch', 'New branch name (created from HEAD and checked out)', '', 'Create');
    if (name) void createBranch(name);
  };
  return (
    <div class="branch-menu" ref={box} role="menu" data-testid="branch-menu">
      <div class="branch-create" role="menuitem" data-testid="branch-create" onClick={() => void create()}>+ Create new branch…</div>
      {error && <div class="form-error">{error}</div>}
      {!list && !error && <div class="muted branch-loading">Loading…</div>}
      <ul>{list?.map((b) => <BranchItem key={b.name} branch={b} onPick={pick} onDelete={remove} onMerge={merge} into={status.value?.branch ?? null} />)}</ul>
      <RefSection title="Remote branches" refs={refs.filter((r) => r.kind === 'remote')} onPick={pick} />
      <RefSection title="Tags" refs={refs.filter((r) => r.kind === 'tag')} onPick={pick}
        tags={{ onPush: (name) => { onClose(); void pushTag(name); }, onDelete: (name) => { onClose(); void deleteTag(name); } }} />
    </div>
  );
}

export function BranchSwitcher() {
  const [menu, setMenu] = useState(false);
  useEffect(startGitSync, []);
  const st = status.value;
  const ready = repoState.value === 'ready';
  const label = st?.branch ?? (st?.head ? st.head.slice(0, 7) : 'no commits');
  return (
    <>
      {ready && (
        <span class="status-git">
          <button class="status-item status-button" data-testid="status-branch" data-branch={st?.branch ?? ''}
            title={isViewer.value ? viewerReason('switch or create branches') : 'Switch branch'}
            disabled={busy.value !== null || isViewer.value} onClick={() => setMenu(!menu)}>
            ⎇ {label}
          </button>
          {menu && <BranchMenu onClose={() => setMenu(false)} />}
        </span>
      )}
      <GitDialogHost />
    </>
  );
}

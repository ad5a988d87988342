// The tab of an editor panel: file name, a dot while dirty, and a close button that asks first.
import { confirmDialog } from '../../ui/dialogs';
import type { PanelProps } from '../workbench/panels';
import { docsVersion, getDoc } from './documents';
import { editedEarly } from './EarlyEditor';

/** A file typed into before Monaco loaded is dirty too (EarlyEditor.tsx). */
const docState = (path: string) => getDoc(path)?.state.value ?? (editedEarly(path) ? 'dirty' : 'clean');

async function close(props: PanelProps, path: string): Promise<void> {
  const state = docState(path);
  if (state === 'dirty' || state === 'error') {
    const answer = await confirmDialog(`Close ${path}?`, 'Your unsaved changes will be lost.', { confirm: 'Discard', danger: true });
    if (!answer.ok) return;
  }
  props.api.close();
}

export function EditorTab(props: PanelProps) {
  const path = String(props.params.path);
  void docsVersion.value;
  const state = docState(path);
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dirty = state !== 'clean';
  return (
    <div class="editor-tab" data-testid="editor-tab" data-path={path} data-state={state} title={path}>
      <span class="editor-tab-name">{name}</span>
      <button
        class={dirty ? 'tab-close dirty' : 'tab-close'}
        data-testid="editor-tab-close"
        aria-label={dirty ? 'Unsaved changes; close' : 'Close'}
        onPointerDown={(ev) => ev.stopPropagation()}
        onClick={(ev) => {
          ev.stopPropagation();
          void close(props, path);
        }}
      >
        <span class="dot" aria-hidden="true">●</span>
        <span class="x" aria-hidden="true">×</span>
      </button>
    </div>
  );
}

// The tab of an editor panel: file name (in italics while it is a preview), a dot while dirty,
// and a close button that asks first.
import { useEffect } from 'preact/hooks';
import { confirmDialog } from '../../ui/dialogs';
import type { PanelProps } from '../../kernel/panels';
import { errorMessage } from '../../api/client';
import { notify } from '../../ui/toast';
import { docsVersion, getDoc, saveDoc } from './documents';
import { restoredVersion, wasRestored } from './hotExit';
import { editedEarly } from './EarlyEditor';
import { keepPanel } from './preview';

/** A file typed into before Monaco loaded is dirty too (EarlyEditor.tsx). */
const docState = (path: string) => getDoc(path)?.state.value ?? (editedEarly(path) ? 'dirty' : 'clean');

/** Closing an unsaved file asks, as desktop editors do: Save, Don't save or Cancel. */
async function close(props: PanelProps, path: string): Promise<void> {
  const state = docState(path);
  if (state === 'dirty' || state === 'error') {
    const answer = await confirmDialog(`Save the changes you made to ${path}?`, "Your changes will be lost if you don't save them.",
      { confirm: 'Save', alternative: "Don't save" });
    if (answer.ok) {
      const doc = getDoc(path);
      if (!doc) return; // still loading: nothing to save yet, and nothing lost by waiting
      try {
        await saveDoc(doc);
      } catch (err) {
        notify(errorMessage(err));
        return;
      }
      if (doc.state.value !== 'clean') return; // a conflict: its dialog is open, the tab stays
    } else if (!answer.alternative) {
      return;
    }
  }
  props.api.close();
}

export function EditorTab(props: PanelProps) {
  const path = String(props.params.path);
  void docsVersion.value;
  void restoredVersion.value;
  const state = docState(path);
  const restored = wasRestored(path) && state !== 'clean';
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dirty = state !== 'clean';
  const preview = props.params.preview === true;
  const keep = () => {
    const panel = props.containerApi.getPanel(props.api.id);
    if (panel) keepPanel(panel);
  };
  // An edited preview is kept: the next file previewed never replaces unsaved text.
  useEffect(() => {
    if (preview && dirty) keep();
  }, [preview, dirty]);
  return (
    <div class={preview ? 'editor-tab preview' : 'editor-tab'} data-testid="editor-tab" data-path={path} data-state={state}
      data-restored={restored} data-preview={preview} onDblClick={keep}
      title={restored ? `${path} · restored unsaved changes` : preview ? `${path} · preview (double-click to keep)` : path}>
      <span class="editor-tab-name">{name}</span>
      {restored && <span class="editor-tab-restored" data-testid="editor-tab-restored" aria-label="restored unsaved changes">↺</span>}
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

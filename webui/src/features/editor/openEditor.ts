import { loadMonaco } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { mainGroup } from '../../kernel/areas';
import type { OpenOptions } from '../../kernel/editor';
import { dock, showPanel } from '../../kernel/panels';
import { openDoc } from './documents';
import { EDITOR_PANEL, editorPanelId } from '../../kernel/editorPanels';
import { keepPanel, previewEnabled, replaceablePreview } from './preview';
import { typingElsewhere } from './focus';

export type { OpenOptions };

/** Opens (or focuses) the editor tab of a file; new ones always go to the main area. */
export function openEditor(path: string, options: OpenOptions = {}): void {
  const id = editorPanelId(path);
  const existing = dock().getPanel(id);
  if (existing && !options.preview) keepPanel(existing);
  const group = existing ? undefined : mainGroup();
  const replaced = group && options.preview && previewEnabled.value ? replaceablePreview(group) : undefined;
  showPanel({
    id,
    component: EDITOR_PANEL,
    title: path.slice(path.lastIndexOf('/') + 1),
    params: options.preview && previewEnabled.value ? { path, preview: true } : { path },
    position: replaced
      ? { referencePanel: replaced.id, index: replaced.group.panels.indexOf(replaced) }
      : group && { referenceGroup: group },
  });
  replaced?.api.close();
}

const WAIT_FRAMES = 120;

/** The Monaco editor of a file once its tab shows it, or undefined if it does not come. */
export async function editorOf(path: string): Promise<monaco.editor.ICodeEditor | undefined> {
  const doc = await openDoc(path);
  if (!doc.model) return undefined; // an image, a model, a binary file
  const { monaco } = await loadMonaco();
  for (let frame = 0; frame < WAIT_FRAMES; frame += 1) {
    const editor = monaco.editor.getEditors().find((e) => doc.model && e.getModel() === doc.model);
    if (editor) return editor;
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  return undefined;
}

/** A double click opens a file to work in it: the typing goes to its editor, as in VS Code. */
export function openToEdit(path: string): void {
  openEditor(path);
  editorOf(path).then((editor) => {
    if (editor && !typingElsewhere(editor.getContainerDomNode())) editor.focus();
  }, () => undefined); // openDoc reports its errors
}

// The current editor: the focused one, else the last one used (also when the focus is elsewhere,
// e.g. on the palette); what Go to line, the formatter and the debugger's F9 (a breakpoint) act on.
import { monacoApi, monacoReady } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { activePath } from '../../kernel/active';
import { getDoc } from './documents';

export function currentEditor(): monaco.editor.ICodeEditor | undefined {
  if (!monacoReady.value) return undefined; // no editor yet
  const editors = monacoApi().editor.getEditors();
  const focused = editors.find((e) => e.hasTextFocus());
  if (focused) return focused;
  const doc = activePath.value ? getDoc(activePath.value) : undefined;
  return editors.find((e) => doc?.model && e.getModel() === doc.model);
}

// One dock panel per open file: a Monaco editor on the document's model, with the
// "changed on disk" prompt above it; a binary file shows as the view a feature registered for it
// (an image as an image, a model as its summary: kernel/fileViews.ts).
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { rawUrl } from '../../api/files';
import { featuresLoaded, loadEditorFeatures } from '../../monaco/editorFeatures';
import { monacoApi, monacoReady } from '../../monaco/load';
import { EDITOR_OPTIONS, optionsFor } from '../../monaco/options';
import type { monaco } from '../../monaco/setup';
import { notify } from '../../ui/toast';
import { binaryViewFor, editorAdditions } from '../../kernel/fileViews';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { answerDiskChange } from './diskSync';
import { openDoc, readForDoc, saveDoc, type Doc } from './documents';
import { EarlyEditor, takeEarlyEdits } from './EarlyEditor';
import { awaitsRestore } from './hotExit';
import { applyEditorExtensions } from '../../kernel/editorExtensions';
import { keepEditorOf } from './preview';
import { typingElsewhere } from './focus';


/** Saving a preview keeps it, as typing in it does. */
export function saveWithNotice(doc: Doc): void {
  keepEditorOf(doc.path);
  saveDoc(doc).catch((err) => notify(errorMessage(err)));
}

function DiskBar({ doc }: { doc: Doc }) {
  const disk = doc.disk.value;
  if (!disk) return null;
  const deleted = disk.kind === 'deleted';
  return (
    <div class="disk-bar" data-testid="disk-changed-bar" role="alert">
      <span>{deleted ? 'This file was deleted on disk.' : 'This file changed on disk and you have unsaved changes.'}</span>
      {!deleted && <button class="btn btn-small" data-testid="disk-reload" onClick={() => answerDiskChange(doc, 'reload')}>Reload from disk</button>}
      <button class="btn btn-small" data-testid="disk-keep" onClick={() => answerDiskChange(doc, 'keep')}>Keep mine</button>
    </div>
  );
}

function MonacoHost({ doc }: { doc: Doc }) {
  const host = useRef<HTMLDivElement>(null);
  // Carried across a re-creation of the editor (when the editing features arrive).
  const view = useRef<{ state: monaco.editor.ICodeEditorViewState | null; focused: boolean }>({ state: null, focused: true });
  const withFeatures = featuresLoaded.value;
  // Layout effects: the editor exists before the next paint, not one frame after it.
  useLayoutEffect(() => {
    // A document with a model exists only once Monaco has loaded (documents.ts).
    const monaco = monacoApi();
    const editor = monaco.editor.create(host.current!, {
      ...EDITOR_OPTIONS,
      ...optionsFor(doc.model!.getLanguageId()),
      model: doc.model,
    });
    // An action, not addCommand: commands of several editors on one page would collide.
    editor.addAction({
      id: 'mnnwb.save',
      label: 'Save',
      keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS],
      run: () => saveWithNotice(doc),
    });
    const extensions = applyEditorExtensions(editor, doc);
    if (view.current.state) editor.restoreViewState(view.current.state);
    const early = takeEarlyEdits(doc.path, doc.model!);
    if (early) {
      const { start, end } = early.selection;
      editor.setSelection({
        selectionStartLineNumber: start.lineNumber, selectionStartColumn: start.column,
        positionLineNumber: end.lineNumber, positionColumn: end.column,
      });
      editor.setScrollTop(early.scrollTop);
      view.current.focused = early.focused;
      if (early.save) saveWithNotice(doc);
    }
    if (view.current.focused && !typingElsewhere(host.current!)) editor.focus();
    loadEditorFeatures();
    return () => {
      view.current = { state: editor.saveViewState(), focused: editor.hasTextFocus() };
      extensions.forEach((extension) => extension.dispose());
      editor.dispose();
    };
  }, [doc, withFeatures]);
  return <div class="monaco-host" ref={host} data-testid="editor" data-path={doc.path} data-features={withFeatures} />;
}

export function EditorPanel(props: PanelProps) {
  const path = String(props.params.path);
  const [doc, setDoc] = useState<Doc | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The file's text, shown for editing while Monaco loads (EarlyEditor.tsx).
  const [earlyText, setEarlyText] = useState<string | null>(null);
  useLayoutEffect(() => {
    openDoc(path).then(setDoc, (err) => setError(errorMessage(err)));
    readForDoc(path).then((file) => {
      // A file coming back with unsaved text shows that text, in Monaco (hotExit.ts).
      if (!file.binary && !monacoReady.value && !awaitsRestore(path)) setEarlyText(file.content ?? '');
    }, () => undefined); // openDoc reports it
  }, [path]);
  if (error) return <div class="panel-message" data-testid="editor-error">Cannot open {path}: {error}</div>;
  if (!doc && earlyText !== null) return <EarlyEditor path={path} text={earlyText} />;
  if (!doc) return <div class="panel-message">Loading {path}…</div>;
  const view = doc.binary ? binaryViewFor(path) : undefined;
  if (view) return view({ ...props, params: { path, size: doc.size } });
  if (doc.binary) {
    return (
      <div class="panel-message">
        {path} is a binary file ({doc.size} bytes). <a href={rawUrl(pid(), path)} download>Download</a>
      </div>
    );
  }
  return (
    <div class="editor-panel">
      {editorAdditions(path)}
      <DiskBar doc={doc} />
      <MonacoHost doc={doc} />
    </div>
  );
}

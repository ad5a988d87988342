// Previews: Markdown rendered beside its editor (the editor's "Open Preview" button or
// Ctrl+Shift+V); an image opened shows as an image (both registered in kernel/fileViews.ts).
import { monacoApi } from '../../monaco/load';
import { registerEditorExtension } from '../../kernel/editorExtensions';
import { registerCommand } from '../../kernel/commands';
import { registerBinaryView, registerEditorAddition } from '../../kernel/fileViews';
import { activePath } from '../../kernel/active';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel } from '../../kernel/panels';
import { ImagePreview } from './ImagePreview';
import { isImage, isMarkdown, MARKDOWN_PREVIEW, openMarkdownPreview } from './open';

function PreviewButton({ path }: { path: string }) {
  return (
    <button class="btn btn-small editor-preview-btn" data-testid="markdown-preview-open" title="Open Preview to the Side (Ctrl+Shift+V)"
      onClick={() => openMarkdownPreview(path)}>Preview</button>
  );
}

export function registerPreviewFeature(): void {
  // markdown-it loads with the first preview, not with the project page.
  registerPanel(MARKDOWN_PREVIEW, lazyPanel(() => import('./MarkdownPreview').then((m) => m.markdownPreview)), { area: 'main' });
  registerBinaryView(isImage, ({ params }) => <ImagePreview path={String(params.path)} size={Number(params.size)} />);
  registerEditorAddition(isMarkdown, (path) => <PreviewButton key="markdown-preview" path={path} />);
  registerEditorExtension((editor, doc) => {
    if (!isMarkdown(doc.path)) return { dispose: () => undefined };
    const monaco = monacoApi();
    return editor.addAction({
      id: 'mnnwb.markdownPreview',
      label: 'Markdown: Open Preview to the Side',
      keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyMod.Shift | monaco.KeyCode.KeyV],
      run: () => openMarkdownPreview(doc.path),
    });
  });
  // The editor's action above has the key; the palette's command works from anywhere.
  const markdown = () => Boolean(activePath.value && isMarkdown(activePath.value));
  registerCommand({ id: 'markdown.preview', label: 'Open preview to the side', category: 'Markdown', shortcut: 'Ctrl+Shift+V',
    ownKey: true, enabled: markdown, run: () => openMarkdownPreview(activePath.value!) });
}

// Previews: Markdown rendered beside its editor (the editor's "Open Preview" button or
// Ctrl+Shift+V); images and models show themselves when opened (see editor/EditorPanel.tsx).
import { monacoApi } from '../../monaco/load';
import { registerEditorExtension } from '../editor/extensions';
import { registerCommand } from '../../kernel/commands';
import { activePath } from '../../kernel/active';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel } from '../../kernel/panels';
import { isMarkdown, MARKDOWN_PREVIEW, openMarkdownPreview } from './open';

export function registerPreviewFeature(): void {
  // markdown-it loads with the first preview, not with the project page.
  registerPanel(MARKDOWN_PREVIEW, lazyPanel(() => import('./MarkdownPreview').then((m) => m.markdownPreview)), { area: 'main' });
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

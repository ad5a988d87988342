// Where a Markdown preview opens: beside its editor (to the right), or in the main area.
import { editorPanelId } from '../../kernel/editorPanels';
import { mainGroup } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';

export const MARKDOWN_PREVIEW = 'markdown-preview';

const IMAGE_EXTENSIONS = ['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.ico', '.avif'];

export const isMarkdown = (path: string): boolean => /\.(md|markdown)$/i.test(path);
export const isImage = (path: string): boolean => IMAGE_EXTENSIONS.some((ext) => path.toLowerCase().endsWith(ext));

export function openMarkdownPreview(path: string): void {
  const id = `preview:${path}`;
  const editor = dock().getPanel(editorPanelId(path));
  showPanel({
    id,
    component: MARKDOWN_PREVIEW,
    title: `Preview ${path.slice(path.lastIndexOf('/') + 1)}`,
    params: { path },
    position: dock().getPanel(id) ? undefined : editor ? { referencePanel: editor, direction: 'right' } : { referenceGroup: mainGroup() },
  });
}

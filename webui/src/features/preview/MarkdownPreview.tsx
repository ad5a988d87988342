// A Markdown file rendered as the editor holds it, following every keystroke. Raw HTML in the file
// is shown as text (markdown-it's `html: false`) and links are checked by markdown-it, so a shared
// project's README cannot run script in the page; relative images load from the project.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { rawUrl } from '../../api/files';
import { openDoc } from '../../kernel/editor';
import { joinPath, parentOf } from '../../kernel/treeStore';
import type { PanelFactory, PanelProps } from '../../kernel/panels';
import { useResource } from '../../kernel/resource';
import { pid } from '../../kernel/session';
import { safeMarkdown } from '../../ui/markdown';
import './preview.css';

const isRelative = (src: string): boolean => !/^([a-z][a-z0-9+.-]*:|\/|#)/i.test(src);

function renderer(path: string) {
  const md = safeMarkdown();
  const image = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const src = String(tokens[idx].attrGet('src') ?? '');
    if (isRelative(src)) tokens[idx].attrSet('src', rawUrl(pid(), joinPath(parentOf(path), decodeURI(src))));
    return image(tokens, idx, options, env, self);
  };
  return md;
}

function MarkdownPreview({ params }: PanelProps) {
  const path = String(params.path);
  const { data: doc, error } = useResource(() => openDoc(path), [path]);
  const [html, setHtml] = useState<string | null>(null);
  const model = doc?.path === path ? doc.model : null;
  useEffect(() => {
    if (!model) return undefined;
    const md = renderer(path);
    const render = () => setHtml(md.render(model.getValue()));
    render();
    const sub = model.onDidChangeContent(render);
    return () => sub.dispose();
  }, [model, path]);
  if (error) return <div class="panel-message">Cannot preview {path}: {errorMessage(error)}</div>;
  if (doc?.path === path && !doc.model) return <div class="panel-message">Cannot preview {path}: not a text file</div>;
  if (html === null) return <div class="panel-message">Loading {path}…</div>;
  // markdown-it escapes raw HTML (html: false): this is markup it generated itself.
  return <article class="markdown-preview" data-testid="markdown-preview" data-path={path} dangerouslySetInnerHTML={{ __html: html }} />;
}

export const markdownPreview: PanelFactory = (props) => <MarkdownPreview {...props} />;

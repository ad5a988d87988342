// A Markdown file rendered as the editor holds it, following every keystroke. Raw HTML in the file
// is shown as text (markdown-it's `html: false`) and links are checked by markdown-it, so a shared
// project's README cannot run script in the page; relative images load from the project.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { rawUrl } from '../../api/files';
import { openDoc } from '../../kernel/editor';
import { joinPath, parentOf } from '../../kernel/treeStore';
import type { PanelFactory, PanelProps } from '../../kernel/panels';
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
  const [html, setHtml] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const md = renderer(path);
    let dispose = () => {};
    openDoc(path).then((doc) => {
      const model = doc.model;
      if (!model) return setError('not a text file');
      const render = () => setHtml(md.render(model.getValue()));
      render();
      const sub = model.onDidChangeContent(render);
      dispose = () => sub.dispose();
    }, (err) => setError(errorMessage(err)));
    return () => dispose();
  }, [path]);
  if (error) return <div class="panel-message">Cannot preview {path}: {error}</div>;
  if (html === null) return <div class="panel-message">Loading {path}…</div>;
  // markdown-it escapes raw HTML (html: false): this is markup it generated itself.
  return <article class="markdown-preview" data-testid="markdown-preview" data-path={path} dangerouslySetInnerHTML={{ __html: html }} />;
}

export const markdownPreview: PanelFactory = (props) => <MarkdownPreview {...props} />;

// The one Markdown renderer of the UI: raw HTML in the text is shown as text (`html: false`) and
// markdown-it refuses script links, so a shared README cannot run script in the page.
import MarkdownIt from 'markdown-it';

export const safeMarkdown = () => new MarkdownIt({ html: false, linkify: true });

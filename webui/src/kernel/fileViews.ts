// How a file shows in its editor tab beyond the text: a feature registers a view for the binary
// files it knows (the preview's images, the model tools' model summary), and what it adds above
// the text of the files it knows (Markdown's Preview button). The editor
// (features/editor/EditorPanel.tsx) asks here, and imports none of those features. A binary
// file's diff (features/git/BinaryDiff.tsx) shows the views registered for it the same way (the
// model tools' summary of the two models).
import type { ComponentChild, FunctionComponent } from 'preact';
import type { GitDiff } from '../api/git';
import type { PanelProps } from './panels';

/** Draws a binary file in its tab; `props.params` holds its `path` and `size` (bytes). */
export type BinaryView = (props: PanelProps) => ComponentChild;

/** Drawn above a text file's editor, e.g. a button. */
export type EditorAddition = (path: string) => ComponentChild;

const views: { matches: (path: string) => boolean; view: BinaryView }[] = [];
const additions: { matches: (path: string) => boolean; addition: EditorAddition }[] = [];

export function registerBinaryView(matches: (path: string) => boolean, view: BinaryView): void {
  views.push({ matches, view });
}

export function registerEditorAddition(matches: (path: string) => boolean, addition: EditorAddition): void {
  additions.push({ matches, addition });
}

/** The view registered first for `path`, if any. */
export const binaryViewFor = (path: string): BinaryView | undefined => views.find((v) => v.matches(path))?.view;

/** What the features add above the editor of `path`, in their order. */
export const editorAdditions = (path: string): ComponentChild[] =>
  additions.filter((a) => a.matches(path)).map((a) => a.addition(path));

/** The revisions of a diff's two sides (null: the working tree or the index, as the diff says). */
export type SideRevs = [string | null, string | null];

/** Drawn under a binary file's diff; it draws nothing for a file it does not know. */
export type BinaryDiffView = FunctionComponent<{ diff: GitDiff; revs: SideRevs }>;

const diffViews: BinaryDiffView[] = [];

export function registerBinaryDiffView(view: BinaryDiffView): void {
  diffViews.push(view);
}

/** The views registered for binary diffs, in their order. */
export const binaryDiffViews = (): readonly BinaryDiffView[] => diffViews;

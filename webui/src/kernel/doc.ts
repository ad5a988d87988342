// The shape of an open document (documents.ts keeps them): a leaf module, so what documents.ts
// uses (hotExit.ts) can name a document without importing it back.
import type { Signal } from '@preact/signals';
import type { monaco } from '../monaco/setup';

export type SaveState = 'clean' | 'dirty' | 'saving' | 'error';

export interface DiskChange {
  kind: 'modified' | 'deleted';
  content: string | null;
  etag: string | null;
}

export interface Doc {
  path: string;
  model: monaco.editor.ITextModel | null;
  binary: boolean;
  size: number;
  /** The text encoding the server read the file with (utf-8 unless it said otherwise). */
  encoding: string | null;
  etag: string | null;
  savedVersion: number;
  state: Signal<SaveState>;
  disk: Signal<DiskChange | null>;
}

// The search panel's state: the query, the streamed results by file, and a replace preview.
import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { pid } from '../../kernel/session';
import { applyReplace, previewReplace, streamSearch, type FilePreview, type SearchMatch, type SearchOptions } from './api';

export const options = signal<SearchOptions>({ q: '', regex: false, case: false, word: false, glob: '' });
export const replacement = signal('');
export const results = signal<Map<string, SearchMatch[]>>(new Map());
export const summary = signal<string>('');
export const searching = signal(false);
export const preview = signal<FilePreview[] | null>(null);

let running: AbortController | null = null;

export async function runSearch(): Promise<void> {
  running?.abort();
  preview.value = null;
  const query = options.value;
  results.value = new Map();
  if (!query.q) {
    summary.value = '';
    return;
  }
  const controller = new AbortController();
  running = controller;
  searching.value = true;
  summary.value = 'Searching…';
  const found = new Map<string, SearchMatch[]>();
  try {
    const end = await streamSearch(pid(), query, (batch) => {
      for (const match of batch) found.set(match.path, [...(found.get(match.path) ?? []), match]);
      results.value = new Map(found);
    }, controller.signal);
    const files = found.size;
    summary.value = end.count === 0 ? 'No results.'
      : `${end.count} result${end.count === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}${end.truncated ? ' (the first ones only; narrow the search)' : ''}`;
  } catch (err) {
    if (!controller.signal.aborted) summary.value = errorMessage(err);
  } finally {
    if (running === controller) searching.value = false;
  }
}

export async function showPreview(): Promise<void> {
  try {
    const found = await previewReplace(pid(), options.value, replacement.value);
    preview.value = found.files;
    const changes = found.files.reduce((n, f) => n + f.count, 0);
    summary.value = `Replace ${changes} match${changes === 1 ? '' : 'es'} in ${found.files.length} file${found.files.length === 1 ? '' : 's'}?`;
  } catch (err) {
    summary.value = errorMessage(err);
  }
}

export async function applyPreview(): Promise<void> {
  const files = preview.value;
  if (!files) return;
  try {
    const done = await applyReplace(pid(), options.value, replacement.value, files);
    preview.value = null;
    const count = done.replaced.reduce((n, f) => n + f.count, 0);
    const skipped = done.skipped.length ? `; ${done.skipped.length} skipped: ${done.skipped.map((s) => `${s.path} (${s.detail})`).join(', ')}` : '';
    await runSearch();
    summary.value = `Replaced ${count} in ${done.replaced.length} file${done.replaced.length === 1 ? '' : 's'}${skipped}.`;
  } catch (err) {
    summary.value = errorMessage(err);
  }
}

// The search API (docs/ide.md): matches stream in as NDJSON lines; replace is preview, then apply.
import { ApiError, apiUrl, clientId, request } from '../../api/client';

export interface SearchOptions {
  q: string;
  regex: boolean;
  case: boolean;
  word: boolean;
  glob: string;
}

export interface SearchMatch {
  kind: 'match';
  path: string;
  line: number;
  column: number;
  length: number;
  preview: string;
  preview_start: number;
}

export interface SearchEnd {
  kind: 'end';
  count: number;
  truncated: boolean;
}

/** The last line of a plain-text search that failed after its first matches went out, in place
 * of the end line (docs/ide.md). */
interface SearchFailed {
  kind: 'error';
  detail: string;
  code: string;
}

type SearchLine = SearchMatch | SearchEnd | SearchFailed;

export interface FilePreview {
  path: string;
  etag: string;
  count: number;
  changes: { line: number; before: string; after: string }[];
}

export interface ReplaceResult {
  replaced: { path: string; etag: string; count: number }[];
  skipped: { path: string; detail: string; code: string }[];
}

/** Calls `onMatches` with each batch as it arrives; resolves with the end line. Rejects with the
 * server's reason when it refuses the search, or when the stream ends with an error line. */
export async function streamSearch(pid: string, options: SearchOptions, onMatches: (found: SearchMatch[]) => void,
  signal: AbortSignal): Promise<SearchEnd> {
  const query = { q: options.q, regex: options.regex, case: options.case, word: options.word, glob: options.glob };
  const res = await fetch(apiUrl(`/api/projects/${pid}/search`, query), {
    credentials: 'same-origin', headers: { 'X-MNNWB-Client': clientId }, signal,
  });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => ({}))) as { detail?: string; code?: string };
    throw new ApiError(res.status, body.code ?? 'error', body.detail ?? `${res.status}`, body);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    const parsed = lines.filter(Boolean).map((line) => JSON.parse(line) as SearchLine);
    const last = parsed.find((item): item is SearchEnd | SearchFailed => item.kind !== 'match');
    onMatches(parsed.filter((item): item is SearchMatch => item.kind === 'match'));
    if (last?.kind === 'error') throw new ApiError(res.status, last.code, last.detail, { ...last });
    if (last) return last;
  }
  throw new ApiError(0, 'network', 'The search stopped before its end.', {});
}

export const previewReplace = (pid: string, options: SearchOptions, replacement: string) =>
  request<{ files: FilePreview[]; truncated: boolean }>('POST', `/api/projects/${pid}/search/replace/preview`, {
    json: { ...options, replacement },
  });

export const applyReplace = (pid: string, options: SearchOptions, replacement: string, files: FilePreview[]) =>
  request<ReplaceResult>('POST', `/api/projects/${pid}/search/replace`, {
    json: { ...options, replacement, files: files.map((f) => ({ path: f.path, etag: f.etag })) },
  });

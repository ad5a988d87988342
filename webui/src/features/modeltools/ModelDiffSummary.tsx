// The Git diff of a binary model file: each side's model summary (from Inspect) beside its size and
// hash. A side the working tree holds exactly (its Git blob id matches the file on disk) is
// inspected in place; any other version is inspected from Git by the server (blob-inspect).
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { rawUrl } from '../../api/files';
import { inspectBlob, type GitDiff } from '../../api/git';
import { getRun, startRun, type InspectResult, type TensorInfo, type ToolRun } from '../../api/tools';
import type { SideRevs } from '../../kernel/fileViews';
import { pid } from '../../kernel/session';
import { formatNumber, formatShape } from './format';
import { openModelDiff } from './diff/openDiff';
import { isModelFile } from './menu';
import './modeldiff.css';

// Larger files are not read into the page just to compare their hash.
const MAX_HASHED_BYTES = 256 * 1024 * 1024;
const POLL_MS = 300;
const POLL_TRIES = 400;

export type Summary = { result: InspectResult } | { note: string };

/** Inspect results by blob id, for the life of the tab: a blob never changes. */
const cache = new Map<string, Promise<Summary>>();

async function gitBlobId(bytes: ArrayBuffer): Promise<string> {
  const header = new TextEncoder().encode(`blob ${bytes.byteLength}\0`);
  const whole = new Uint8Array(header.length + bytes.byteLength);
  whole.set(header);
  whole.set(new Uint8Array(bytes), header.length);
  const digest = await crypto.subtle.digest('SHA-1', whole);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The blob id of the working-tree file, or null when it is absent, too large or unhashable. */
async function diskBlobId(path: string, size: number | null): Promise<string | null> {
  if (!crypto.subtle || size === null || size > MAX_HASHED_BYTES) return null;
  const res = await fetch(rawUrl(pid(), path), { credentials: 'same-origin' });
  return res.ok ? gitBlobId(await res.arrayBuffer()) : null;
}

async function inspect(start: () => Promise<ToolRun>): Promise<Summary> {
  let run = await start();
  for (let i = 0; i < POLL_TRIES && (run.status === 'queued' || run.status === 'running'); i += 1) {
    await new Promise((done) => window.setTimeout(done, POLL_MS));
    run = await getRun(run.id);
  }
  if (run.status === 'succeeded' && run.result) return { result: run.result as unknown as InspectResult };
  return { note: run.error ?? `Inspect ended ${run.status}.` };
}

/** Inspect of one blob: of the file on disk when it holds that blob, else from Git at `rev`. */
function summarise(path: string, sha: string, rev: string | null): Promise<Summary> {
  const cached = cache.get(sha);
  if (cached) return cached;
  const start = rev === null ? () => startRun(pid(), 'inspect', { model: path }) : () => inspectBlob(pid(), rev, path);
  const pending = inspect(start).catch((err: unknown) => ({ note: errorMessage(err) }));
  cache.set(sha, pending);
  return pending;
}

const tensors = (list: TensorInfo[]) => list.map((t) => `${t.name} ${formatShape(t.shape)}`).join(', ') || '—';

export function Card({ summary, testid }: { summary: Summary | null; testid: string }) {
  if (!summary) return <div class="model-card muted" data-testid={testid}>Reading…</div>;
  if ('note' in summary) return <div class="model-card muted" data-testid={testid}>{summary.note}</div>;
  const r = summary.result;
  return (
    <dl class="model-card" data-testid={testid}>
      <dt>Format</dt><dd>{r.format.toUpperCase()}{r.version ? ` · ${r.version}` : ''}</dd>
      <dt>Inputs</dt><dd class="mono" data-testid={`${testid}-inputs`}>{tensors(r.inputs)}</dd>
      <dt>Outputs</dt><dd class="mono">{tensors(r.outputs)}</dd>
      <dt>Parameters</dt><dd>{formatNumber(r.params)}</dd>
      <dt>MFLOPs</dt><dd>{formatNumber(r.mflops)}</dd>
      <dt>Ops</dt><dd>{r.op_count} ({r.op_histogram.slice(0, 4).map((o) => `${o.type} ×${o.count}`).join(', ')})</dd>
    </dl>
  );
}

/** Both sides exist and are .mnn: the model diff can run them (layer by layer, timed). */
const canDiff = (diff: GitDiff): boolean => diff.path.toLowerCase().endsWith('.mnn') && !!diff.old_sha && !!diff.new_sha;

/** The diff of the two sides: the old one at its revision, the new one at its own (or on disk). */
/** The revision of each side (`HEAD`, `:0`, a commit, `<commit>^`); null for the working tree. */

function diffRequest(diff: GitDiff, revs: SideRevs) {
  return { a: diff.path, rev_a: revs[0] ?? undefined, rev_b: revs[1] ?? undefined };
}

export function ModelDiffSummary({ diff, revs }: { diff: GitDiff; revs: SideRevs }) {
  const [sides, setSides] = useState<[Summary | null, Summary | null]>([null, null]);
  useEffect(() => {
    if (!isModelFile(diff.path)) return;
    let live = true;
    const side = async (sha: string | null, disk: string | null, rev: string | null): Promise<Summary> => {
      if (!sha) return { note: '(none)' };
      return summarise(diff.path, sha, sha === disk ? null : rev);
    };
    diskBlobId(diff.path, diff.new_size ?? diff.old_size)
      .catch(() => null)
      .then((disk) => Promise.all([side(diff.old_sha, disk, revs[0]), side(diff.new_sha, disk, revs[1])]))
      .then((both) => live && setSides(both));
    return () => void (live = false);
  }, [diff.path, diff.old_sha, diff.new_sha, revs[0], revs[1]]);
  if (!isModelFile(diff.path)) return null;
  return (
    <div class="model-diff" data-testid="model-diff-summary">
      <div class="scm-binary-title">
        Model summary
        {canDiff(diff) && (
          <button class="btn" data-testid="open-model-diff" onClick={() => openModelDiff({ request: diffRequest(diff, revs) })}>
            {revs[1] ? 'Compare with previous version' : 'Model diff'}
          </button>
        )}
      </div>
      <div class="scm-binary-sides">
        <Card summary={sides[0]} testid="model-old" />
        <Card summary={sides[1]} testid="model-new" />
      </div>
    </div>
  );
}

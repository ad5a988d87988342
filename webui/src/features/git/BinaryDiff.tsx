// A binary file's change: the size and blob hash of each side instead of its bytes, and a
// download of each side.
import { rawUrl } from '../../api/files';
import { blobUrl, type GitDiff } from '../../api/git';
import { binaryDiffViews, type SideRevs } from '../../kernel/fileViews';
import { pid } from '../../kernel/session';

function formatSize(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]} (${bytes.toLocaleString()} bytes)`;
}

interface SideProps {
  title: string;
  path: string;
  rev: string | null;
  size: number | null;
  sha: string | null;
  testid: string;
}

function Side({ title, path, rev, size, sha, testid }: SideProps) {
  const absent = size === null && sha === null;
  const href = rev === null ? rawUrl(pid(), path) : blobUrl(pid(), rev, path);
  return (
    <div class="scm-binary-side" data-testid={testid}>
      <div class="scm-binary-title">{title}</div>
      {absent ? <div class="muted">(none)</div> : (
        <dl>
          <dt>Size</dt><dd data-testid={`${testid}-size`}>{formatSize(size)}</dd>
          <dt>Blob id</dt><dd class="mono" data-testid={`${testid}-sha`}>{sha ?? '—'}</dd>
          <dt /><dd><a href={href} download data-testid={`${testid}-download`}>Download</a></dd>
        </dl>
      )}
    </div>
  );
}

export function BinaryDiff({ diff, revs }: { diff: GitDiff; revs: SideRevs }) {
  return (
    <div class="scm-binary" data-testid="git-binary-diff">
      <p class="muted">Binary file — contents are not shown.</p>
      <div class="scm-binary-sides">
        <Side title="Before" path={diff.path} rev={revs[0]} size={diff.old_size} sha={diff.old_sha} testid="binary-old" />
        <Side title="After" path={diff.path} rev={revs[1]} size={diff.new_size} sha={diff.new_sha} testid="binary-new" />
      </div>
      {binaryDiffViews().map((View, index) => <View key={index} diff={diff} revs={revs} />)}
    </div>
  );
}

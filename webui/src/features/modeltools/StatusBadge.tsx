// A run's status as a small coloured badge.
import type { RunStatus } from '../../api/tools';

const GLYPHS: Record<RunStatus, string> = {
  queued: '○',
  running: '●',
  succeeded: '✓',
  failed: '✗',
  crashed: '✗',
  cancelled: '–',
};

export function StatusBadge({ status }: { status: RunStatus }) {
  return (
    <span class={`tool-badge run-${status}`} data-testid="tool-status" data-status={status}>
      <span class="tool-badge-glyph" aria-hidden="true">{GLYPHS[status]}</span>{status}
    </span>
  );
}

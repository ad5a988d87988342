// One input of a pipeline run: the photo with the boxes (or tilted quads) of the last stage that
// found boxes, what the last model stage read over each, each stage's time and memory (a model
// stage's MNN session) and the timeline.
import { rawUrl } from '../../../api/files';
import type { PipelineInputResult, PipelineStage } from '../../../api/tools';
import { pid } from '../../../kernel/session';

type Item = Record<string, unknown> & { outputs?: Record<string, Record<string, unknown>>; boxes?: Box[] };
interface Box { box: number[]; quad?: number[][]; score: number; label: string }

function boxesOf(stages: PipelineStage[]): Box[] {
  const last = [...stages].reverse().find((s) => s.items.some((i) => (i as Item).boxes));
  return last ? last.items.flatMap((i) => (i as Item).boxes ?? []) : [];
}

/** What the last model stage read per item: a text, or a top label. */
export function readings(stage: PipelineStage | undefined): string[] {
  if (!stage) return [];
  return stage.items.map((raw) => {
    const outputs = Object.values((raw as Item).outputs ?? {});
    const text = outputs.find((o) => o.kind === 'text');
    if (text) return String(text.text);
    const top = outputs.find((o) => o.kind === 'classes');
    const first = (top?.top as { label: string; score: number }[] | undefined)?.[0];
    return first ? `${first.label} ${(first.score * 100).toFixed(0)}%` : '';
  });
}

/** Megabytes as the panel shows them; a dash where nothing was measured (a step). */
export const mb = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : value < 10 ? value.toFixed(2) : value.toFixed(1);

function Shape({ box }: { box: Box }) {
  if (box.quad) {
    return <polygon points={box.quad.map(([x, y]) => `${x},${y}`).join(' ')} data-testid="pipeline-quad" />;
  }
  const [x1, y1, x2, y2] = box.box;
  return <rect x={x1} y={y1} width={x2 - x1} height={y2 - y1} />;
}

function memoryOf(stages: PipelineStage[], id: string): string {
  const used = stages.find((s) => s.id === id)?.memory_mb;
  return used == null ? '' : `, session ${mb(used)} MB`;
}

/** `picture`: the image the input was (a camera's frame), instead of the project's file. */
export function InputView({ result, diverged, picture }: { result: PipelineInputResult; diverged?: Set<string>; picture?: string }) {
  const boxes = boxesOf(result.stages);
  const models = result.stages.filter((s) => s.kind === 'model');
  const read = readings(models[models.length - 1]);
  const total = Math.max(result.ms, 1e-6);
  return (
    <div class="pipeline-input" data-testid="pipeline-input" data-input={result.input}>
      <div class="try-it-view">
        {result.audio ? (
          <div class="pipeline-audio" data-testid="pipeline-audio">
            <audio controls src={rawUrl(pid(), result.input)} />
            <div class="mono muted">{result.audio.seconds.toFixed(2)} s at {result.audio.sample_rate} Hz</div>
          </div>
        ) : result.image && (
          <div class="try-it-image">
            <img src={picture ?? rawUrl(pid(), result.input)} alt={result.input} data-testid="pipeline-image" />
            <svg viewBox={`0 0 ${result.image.width} ${result.image.height}`} preserveAspectRatio="none" data-testid="pipeline-boxes">
              {boxes.map((b, i) => (
                <g key={i} data-testid="pipeline-box">
                  <Shape box={b} />
                  {read.length === boxes.length && <text x={b.box[0]} y={b.box[1] - 2}>{read[i]}</text>}
                </g>
              ))}
            </svg>
          </div>
        )}
        <div class="try-it-outputs">
          <div class="mono" data-testid="pipeline-total">{result.input} · {result.ms.toFixed(1)} ms end to end{result.image ? ` · ${boxes.length} box(es)` : ''}
            {result.memory_mb != null && <span data-testid="pipeline-memory"> · {mb(result.memory_mb)} MB in sessions</span>}
            {result.peak_rss_mb != null && <span data-testid="pipeline-peak"> · peak {mb(result.peak_rss_mb)} MB resident</span>}</div>
          <table class="tool-table" data-testid="pipeline-stages">
            <thead><tr><th>Stage</th><th>Kind</th><th class="num">Items</th><th class="num">ms</th><th class="num" title="The stage's MNN session memory">MB</th><th>Share</th></tr></thead>
            <tbody>{result.stages.map((s) => (
              <tr key={s.id} data-testid="pipeline-stage" data-stage={s.id} class={diverged?.has(s.id) ? 'pipeline-diverged' : ''}>
                <td class="mono">{s.id}</td><td class="muted">{s.kind}</td><td class="num">{s.items.length}</td>
                <td class="num mono">{s.ms.toFixed(2)}</td>
                <td class="num mono" data-testid="pipeline-stage-memory">{mb(s.memory_mb)}</td>
                <td><div class="pipeline-bar" style={{ width: `${Math.min(100, (100 * s.ms) / total)}%` }} /></td>
              </tr>
            ))}</tbody>
          </table>
          {read.length > 0 && (
            <div data-testid="pipeline-readings" class="mono">Read: {read.filter(Boolean).join(' · ') || '(nothing)'}</div>
          )}
        </div>
      </div>
      <div class="pipeline-timeline" data-testid="pipeline-timeline" title="Each bar: one stage on one item, from the input's start">
        {result.timeline.map((t, i) => (
          <div key={i} class={`pipeline-span stage-${result.stages.findIndex((s) => s.id === t.stage) % 6}`}
            style={{ left: `${(100 * t.start_ms) / total}%`, width: `${Math.max(0.3, (100 * (t.end_ms - t.start_ms)) / total)}%` }}
            title={`${t.stage}${t.item !== null ? ` #${t.item}` : ''}${t.batch ? `–${t.item! + t.batch - 1} (batch of ${t.batch})` : ''}: ${(t.end_ms - t.start_ms).toFixed(2)} ms${memoryOf(result.stages, t.stage)}`} />
        ))}
      </div>
    </div>
  );
}

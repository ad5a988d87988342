// The project's datasets (docs/datasets.md): each with its layout, counts per class and split, a
// few thumbnails per class and the files that cannot be samples; Evaluate… opens its panel.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { listDatasets, type DatasetSummary } from '../../api/datasets';
import { rawUrl } from '../../api/files';
import { isViewer } from '../../kernel/account';
import { pid } from '../../kernel/session';
import { openEvaluate } from './open';

const KINDS: Record<DatasetSummary['kind'], string> = { image_folder: 'ImageFolder', coco: 'COCO', csv: 'CSV' };

function Counts({ dataset }: { dataset: DatasetSummary }) {
  const splits = Object.keys(dataset.counts);
  const unit = dataset.task === 'detection' ? 'boxes' : 'samples';
  return (
    <table class="tool-table dataset-counts" data-testid="dataset-counts">
      <thead><tr><th>Class</th>{splits.map((s) => <th key={s} class="num">{s}</th>)}</tr></thead>
      <tbody>
        {dataset.classes.map((name) => (
          <tr key={name} data-testid="dataset-class" data-class={name}>
            <td class="mono">{name}</td>
            {splits.map((s) => <td key={s} class="num mono" data-split={s}>{dataset.counts[s][name] ?? 0}</td>)}
          </tr>
        ))}
        <tr class="dataset-total">
          <td class="muted">{dataset.task === 'detection' ? 'images' : `all ${unit}`}</td>
          {splits.map((s) => <td key={s} class="num mono">{dataset.files[s] ?? 0}</td>)}
        </tr>
      </tbody>
    </table>
  );
}

function Thumbnails({ dataset }: { dataset: DatasetSummary }) {
  const classes = Object.entries(dataset.thumbnails);
  if (!classes.length) return null;
  return (
    <div class="dataset-thumbs" data-testid="dataset-thumbnails">
      {classes.map(([name, paths]) => (
        <figure key={name} class="dataset-thumb-class">
          <figcaption class="mono">{name}</figcaption>
          <div>{paths.map((p) => <img key={p} src={rawUrl(pid(), p)} alt={p} title={p} loading="lazy" data-testid="dataset-thumbnail" />)}</div>
        </figure>
      ))}
    </div>
  );
}

function Card({ dataset }: { dataset: DatasetSummary }) {
  return (
    <section class="dataset-card" data-testid="dataset" data-path={dataset.path}>
      <header class="dataset-head">
        <span class="mono dataset-path">{dataset.path}</span>
        <span class="muted">{KINDS[dataset.kind]} · {dataset.task} · {dataset.input_kind}</span>
        <span class="status-spacer" />
        {!isViewer.value && !dataset.error && dataset.samples > 0 && (
          <button class="btn btn-primary" data-testid="dataset-evaluate" onClick={() => openEvaluate({ dataset: dataset.path })}>Evaluate…</button>
        )}
      </header>
      {dataset.error ? <div class="form-error" data-testid="dataset-error">{dataset.error}</div> : (
        <>
          <div class="dataset-line" data-testid="dataset-summary">
            {dataset.samples} samples · {dataset.classes.length} classes
            {dataset.splits.length > 0 && <> · splits {dataset.splits.join(', ')}{dataset.eval_split && <> (evaluates on {dataset.eval_split})</>}</>}
            {' · '}<span class={dataset.skipped_count ? 'tone-warn' : 'muted'} data-testid="dataset-skipped-count">{dataset.skipped_count} skipped</span>
          </div>
          {dataset.classes.length > 0 && <Counts dataset={dataset} />}
          <Thumbnails dataset={dataset} />
          {dataset.skipped.length > 0 && (
            <details class="tool-section" data-testid="dataset-skipped">
              <summary>Files skipped ({dataset.skipped_count})</summary>
              <table class="tool-table">
                <thead><tr><th>File</th><th>Why</th></tr></thead>
                <tbody>{dataset.skipped.map((s) => <tr key={s.file} data-testid="dataset-skipped-file"><td class="mono">{s.file}</td><td>{s.reason}</td></tr>)}</tbody>
              </table>
            </details>
          )}
        </>
      )}
    </section>
  );
}

export function DatasetsPanel() {
  const [found, setFound] = useState<DatasetSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    setError(null);
    listDatasets(pid()).then(setFound, (err) => setError(errorMessage(err)));
  };
  useEffect(load, []);
  return (
    <div class="tool-panel datasets-panel" data-testid="datasets-panel">
      <div class="panel-toolbar">
        <span class="panel-toolbar-title">Datasets</span>
        <button class="icon-btn" title="Look again" aria-label="Refresh" data-testid="datasets-refresh" onClick={load}>↻</button>
      </div>
      <div class="datasets-body">
        {error && <div class="form-error">{error}</div>}
        {!found && !error && <div class="tool-empty muted">Looking for datasets…</div>}
        {found && found.length === 0 && (
          <div class="tool-empty muted" data-testid="datasets-none">
            No dataset in this project. An image dataset is a folder of class folders (<code>cat/</code>, <code>dog/</code>, optionally
            under <code>train/</code>, <code>val/</code>, <code>test/</code>); detection is COCO (<code>annotations.json</code>); a
            table is a <code>.csv</code> with a <code>label</code> column.
          </div>
        )}
        {found?.map((d) => <Card key={d.path} dataset={d} />)}
      </div>
    </div>
  );
}

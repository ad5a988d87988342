// What a card answers for the chosen version: inputs and outputs with their pre- and
// post-processing, license and authors, accuracy with what it was measured on, latency per
// device, each model file's size and how to run the demo. A fact the package does not give is
// said to be missing, never left out or made up.
import type { MarketCard, PackageInput, PackageOutput, VersionInfo } from '../../api/market';
import { formatAccuracy, formatSize, sourceLabel } from './format';

const LICENSE_FILE = /^(licen[cs]e|copying)(\.(txt|md))?$/i;

function Missing({ testid, children }: { testid: string; children: string }) {
  return <p class="muted market-missing" data-testid={testid}>{children}</p>;
}

function Shape({ shape }: { shape?: number[] }) {
  if (!shape?.length) return <span class="muted">not given</span>;
  return (
    <span class="mono" data-testid="market-shape">
      [{shape.map((d, i) => (
        <span key={i}>{i ? ', ' : ''}{d > 0 ? d : <span class="market-dim-dynamic" title="dynamic: set at run time">?</span>}</span>
      ))}]
    </span>
  );
}

const list = (values: number[]) => values.map((v) => Number(v.toPrecision(4))).join(', ');

function preprocessing(input: PackageInput): string[] {
  const steps: string[] = [];
  if (input.size?.length) steps.push(`size ${input.size.join('×')}`);
  if (input.kind && input.kind !== 'tensor') steps.push(input.kind);
  if (input.color) steps.push(`colour ${input.color}`);
  if (input.resize) steps.push(`resize ${input.resize}`);
  if (input.scale != null) steps.push(`scale ${Number(input.scale.toPrecision(4))}`);
  if (input.mean?.length) steps.push(`mean ${list(input.mean)}`);
  if (input.std?.length) steps.push(`std ${list(input.std)}`);
  if (input.default_shape?.length) steps.push(`runs at [${input.default_shape.join(', ')}]`);
  return steps;
}

function Inputs({ inputs }: { inputs: PackageInput[] }) {
  if (!inputs.length) return <Missing testid="market-no-inputs">No inputs declared.</Missing>;
  return (
    <table class="market-table" data-testid="market-inputs">
      <thead><tr><th>input</th><th>shape</th><th>dtype</th><th>layout</th><th>pre-processing</th><th>description</th></tr></thead>
      <tbody>
        {inputs.map((i) => (
          <tr key={i.name} data-testid="market-input" data-name={i.name}>
            <td class="mono">{i.name}</td><td><Shape shape={i.shape} /></td><td>{i.dtype ?? 'float32'}</td>
            <td>{i.layout ?? <span class="muted">not given</span>}</td>
            <td data-testid="market-preprocessing">{preprocessing(i).join('; ') || <span class="muted">none given</span>}</td>
            <td>{i.description ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Meaning({ output }: { output: PackageOutput }) {
  if (output.labels?.length) {
    return (
      <details data-testid="market-labels">
        <summary>{output.labels.length} labels</summary>
        <ol class="market-labels">{output.labels.map((l, i) => <li key={i}>{l}</li>)}</ol>
      </details>
    );
  }
  if (output.labels_file) return <span>labels in <span class="mono">{output.labels_file}</span></span>;
  if (output.threshold != null) return <span>positive above {output.threshold}</span>;
  return <span class="muted">no labels given</span>;
}

function Outputs({ outputs }: { outputs: PackageOutput[] }) {
  if (!outputs.length) return <Missing testid="market-no-outputs">No outputs declared.</Missing>;
  return (
    <table class="market-table" data-testid="market-outputs">
      <thead><tr><th>output</th><th>shape</th><th>dtype</th><th>kind</th><th>labels / post-processing</th></tr></thead>
      <tbody>
        {outputs.map((o) => (
          <tr key={o.name} data-testid="market-output" data-name={o.name}>
            <td class="mono">{o.name}</td><td><Shape shape={o.shape} /></td><td>{o.dtype ?? 'float32'}</td>
            <td>{o.kind ?? <span class="muted">not given</span>}</td><td><Meaning output={o} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Provenance({ card, version }: { card: MarketCard; version: VersionInfo }) {
  const licenseFile = version.files.find((f) => LICENSE_FILE.test(f.path.split('/').pop() ?? ''));
  return (
    <dl class="market-facts" data-testid="market-provenance">
      <dt>License</dt>
      <dd data-testid="market-license">
        {version.license || <span class="muted">no license given</span>}
        {licenseFile && <span> — text in <span class="mono" data-testid="market-license-file">{licenseFile.path}</span> ({formatSize(licenseFile.size)})</span>}
        {licenseFile && card.license_text && version.version === card.latest && (
          <details data-testid="market-license-text"><summary>read it</summary><pre class="market-license-text">{card.license_text}</pre></details>
        )}
      </dd>
      <dt>Authors</dt>
      <dd data-testid="market-authors">{version.authors.join(', ') || <span class="muted">no authors given</span>}</dd>
      <dt>Source</dt>
      <dd>
        {sourceLabel(card.source)}
        {version.publisher ? ` — published by ${version.publisher}${version.published_at ? ` on ${version.published_at.slice(0, 10)}` : ''}` : ''}
      </dd>
    </dl>
  );
}

const KNOWN_FIGURES = new Set(['accuracy', 'eval_set', 'size_bytes', 'latency']);

/** Further named figures a package gives (f1, an 8-bit model's size and accuracy, …). */
function OtherFigures({ version }: { version: VersionInfo }) {
  const figures = Object.entries(version.metrics as Record<string, unknown>)
    .filter(([key, value]) => !KNOWN_FIGURES.has(key) && value != null && typeof value !== 'object');
  if (!figures.length) return null;
  return (
    <dl class="market-facts" data-testid="market-figures">
      {figures.map(([key, value]) => [<dt key={`${key}-k`}>{key}</dt>, <dd key={`${key}-v`}>{String(value)}</dd>])}
    </dl>
  );
}

function Accuracy({ version }: { version: VersionInfo }) {
  const { accuracy, eval_set: evalSet } = version.metrics;
  return (
    <>
      {accuracy == null ? <Missing testid="market-accuracy">No accuracy measured.</Missing> : (
        <p data-testid="market-accuracy">
          <strong>{formatAccuracy(accuracy)}</strong>{' '}
          {evalSet ? <span>measured on <span data-testid="market-eval-set">{evalSet}</span></span>
            : <span class="muted">— what it was measured on is not given</span>}
        </p>
      )}
      <OtherFigures version={version} />
    </>
  );
}

function Latency({ version }: { version: VersionInfo }) {
  const runs = version.metrics.latency ?? [];
  if (!runs.length) return <Missing testid="market-no-latency">No latency measured.</Missing>;
  return (
    <table class="market-table" data-testid="market-latency">
      <thead><tr><th>device</th><th>threads</th><th>median ms</th><th>runs</th></tr></thead>
      <tbody>
        {runs.map((f, i) => (
          <tr key={i} data-testid="market-latency-row">
            <td>{f.device}</td><td>{f.threads ?? 1}</td><td>{Number(f.median_ms.toPrecision(3))}</td><td>{f.runs ?? 1}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ModelSizes({ version }: { version: VersionInfo }) {
  const models = version.files.filter((f) => f.role === 'model' || f.role === 'source-model');
  if (!models.length) return <Missing testid="market-no-models">No model file listed.</Missing>;
  return (
    <ul class="market-models" data-testid="market-models">
      {models.map((f) => (
        <li key={f.path} data-testid="market-model" data-path={f.path}>
          <span class="mono">{f.path}</span> — {formatSize(f.size)} <span class="muted">({f.role === 'model' ? 'MNN model' : 'source model'})</span>
        </li>
      ))}
    </ul>
  );
}

function Demo({ card, version }: { card: MarketCard; version: VersionInfo }) {
  if (!version.demo?.entry) return <Missing testid="market-no-demo">This version has no demo.</Missing>;
  const command = ['python', `market/${card.id}/${version.demo.entry}`, ...(version.demo.args ?? [])].join(' ');
  return (
    <p data-testid="market-demo">
      After installing, run <code class="mono" data-testid="market-demo-command">{command}</code> in the project's terminal,
      or deploy the project to a device and run it there.
    </p>
  );
}

export function CardFacts({ card, version }: { card: MarketCard; version: VersionInfo }) {
  return (
    <div class="market-facts-block" data-testid="market-facts" data-version={version.version}>
      <h3>Inputs</h3>
      <Inputs inputs={version.inputs} />
      <h3>Outputs</h3>
      <Outputs outputs={version.outputs} />
      <h3>License and authors</h3>
      <Provenance card={card} version={version} />
      <h3>Accuracy</h3>
      <Accuracy version={version} />
      <h3>Latency</h3>
      <Latency version={version} />
      <h3>Model files</h3>
      <ModelSizes version={version} />
      <h3>Demo</h3>
      <Demo card={card} version={version} />
    </div>
  );
}

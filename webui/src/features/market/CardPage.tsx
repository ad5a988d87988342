// A package's page: its versions, what the chosen one takes and gives, its license, figures and
// demo (CardFacts), its files with their sha256, the lineage it was published with, its README,
// and the install buttons.
import { useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getCard, installVersion, type MarketCard, type VersionInfo } from '../../api/market';
import { projectUrl } from '../../api/projects';
import { promptWithOption } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { useAction, useResource } from '../../kernel/resource';
import { LineageView } from '../lineage/LineageView';
import { CardFacts } from './CardFacts';
import { safeMarkdown } from '../../ui/markdown';
import { formatAccuracy, formatLatency, formatSize, sourceLabel } from './format';
import '../preview/preview.css';

const markdown = safeMarkdown();

function latency(version: VersionInfo): string {
  const figures = version.metrics.latency ?? [];
  return figures.map((f) => `${formatLatency(f.median_ms)} (${f.device}, ${f.threads ?? 1} thr)`).join('; ') || '—';
}

function Versions(props: { card: MarketCard; chosen: VersionInfo; choose: (v: VersionInfo) => void }) {
  return (
    <table class="market-table" data-testid="market-versions">
      <thead><tr><th>version</th><th>published</th><th>accuracy</th><th>size</th><th>latency</th><th /></tr></thead>
      <tbody>
        {props.card.versions.map((v) => (
          <tr key={v.version} class={v === props.chosen ? 'selected' : ''} data-testid="market-version" data-version={v.version} onClick={() => props.choose(v)}>
            <td>{v.version}</td>
            <td>{v.published_at ? `${v.published_at.slice(0, 10)} ${v.publisher ?? ''}` : '—'}</td>
            <td>{formatAccuracy(v.metrics.accuracy)}{v.metrics.eval_set ? <span class="muted"> · {v.metrics.eval_set}</span> : null}</td>
            <td>{formatSize(v.metrics.size_bytes)}</td>
            <td>{latency(v)}</td>
            <td>{v.deprecated ? <span class="market-deprecated">deprecated</span> : null}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Files({ version }: { version: VersionInfo }) {
  return (
    <table class="market-table" data-testid="market-files">
      <thead><tr><th>file</th><th>role</th><th>size</th><th>sha256</th></tr></thead>
      <tbody>
        {version.files.map((f) => (
          <tr key={f.path} data-testid="market-file" data-path={f.path}>
            <td class="mono">{f.path}</td><td>{f.role ?? ''}</td><td>{formatSize(f.size)}</td>
            <td class="mono market-sha" title={f.sha256}>{f.sha256}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function useInstall(card: MarketCard | null, version: VersionInfo | null, projectId?: string) {
  const install = useAction(async (target: { project_id: string } | { new_project: string; git: boolean }) => {
    if (!card || !version) return null;
    try {
      return await installVersion(card.id, version.version, { source: card.source, ...target });
    } catch (err) {
      notify(errorMessage(err));
      return null;
    }
  });
  const run = install.run;
  const createProject = async () => {
    const answer = await promptWithOption('Create project', 'Name of the new project:', card?.id ?? '', 'Create',
      { label: 'Track with Git', checked: true, testid: 'prompt-git' });
    const done = answer?.value.trim() ? await run({ new_project: answer.value.trim(), git: answer.option }) : null;
    if (done) window.open(projectUrl(done.project_id), '_blank', 'noopener');
  };
  const addHere = async () => {
    const done = projectId ? await run({ project_id: projectId }) : null;
    if (done) notify(`Added ${done.files.length} files: ${done.files.join(', ')}`, 'info');
  };
  return { busy: install.running, createProject, addHere };
}

export function CardPage(props: { id: string; source: string; projectId?: string; onBack: () => void }) {
  const [chosen, setChosen] = useState<VersionInfo | null>(null);
  const read = useResource(() => getCard(props.id, props.source).then((c) => {
    setChosen(c.versions.find((v) => v.version === c.latest) ?? c.versions[0] ?? null);
    return c;
  }), [props.id, props.source]);
  const card = read.data;
  const error = read.error === null ? null : errorMessage(read.error);
  const install = useInstall(card, chosen, props.projectId);
  const back = <button class="btn" data-testid="market-back" onClick={props.onBack}>← Market</button>;
  if (error) return <div class="market">{back}<div class="panel-message">Cannot read {props.id}: {error}</div></div>;
  if (!card || !chosen) return <div class="market">{back}<div class="panel-message">Loading…</div></div>;
  return (
    <div class="market market-page" data-testid="market-page" data-id={card.id} data-source={card.source}>
      <div class="market-page-head">
        {back}
        <h2>{card.name}</h2>
        <span class="market-source">{sourceLabel(card.source)}</span>
        <span class="muted">{card.task}</span>
        <span class="status-spacer" />
        <button class="btn btn-primary" data-testid="market-create-project" disabled={install.busy} onClick={() => void install.createProject()}>
          Create project from this
        </button>
        {props.projectId && (
          <button class="btn" data-testid="market-add-here" disabled={install.busy} onClick={() => void install.addHere()}>Add to this project</button>
        )}
      </div>
      <p>{card.summary}</p>
      <Versions card={card} chosen={chosen} choose={setChosen} />
      <CardFacts card={card} version={chosen} />
      <h3>Files of {chosen.version}</h3>
      <Files version={chosen} />
      <h3>Lineage</h3>
      {chosen.lineage ? <LineageView graph={chosen.lineage} /> : <p class="muted" data-testid="market-no-lineage">This version carries no lineage.</p>}
      <h3>README</h3>
      {/* markdown-it escapes raw HTML (html: false): this is markup it generated itself. */}
      <article class="markdown-preview" data-testid="market-readme" dangerouslySetInnerHTML={{ __html: markdown.render(card.readme) }} />
    </div>
  );
}

// The market: every source's packages as cards, with search and task / source filters; a card
// opens the package's page. Used on the home page and in a project's dock panel.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { listMarket, listSources, type MarketEntry, type SourceStatus } from '../../api/market';
import { CardPage } from './CardPage';
import { formatAccuracy, formatLatency, formatSize, sourceLabel } from './format';
import './market.css';

interface Open {
  id: string;
  source: string;
}

function Card({ entry, onOpen }: { entry: MarketEntry; onOpen: () => void }) {
  return (
    <button class="market-card" data-testid="market-card" data-id={entry.id} data-source={entry.source} onClick={onOpen}>
      <div class="market-card-head">
        <span class="market-card-name">{entry.name}</span>
        <span class={`market-source market-source-${entry.source === 'builtin' || entry.source === 'registry' ? entry.source : 'remote'}`}>
          {sourceLabel(entry.source)}
        </span>
      </div>
      <div class="market-task">{entry.task || 'no task given'}</div>
      <div class="market-summary">{entry.summary}</div>
      <div class="market-figures">
        <span title="model size">{formatSize(entry.size_bytes)}</span>
        <span title="accuracy on its evaluation set">{formatAccuracy(entry.accuracy)}</span>
        <span title="median latency">{formatLatency(entry.latency_ms)}</span>
        <span class="muted">v{entry.latest}</span>
      </div>
    </button>
  );
}

/** Each source and how the market found it; an offline one says why, the rest still list. */
function Sources({ sources }: { sources: SourceStatus[] }) {
  return (
    <div class="market-sources" data-testid="market-sources">
      {sources.map((s) => (
        <span key={s.name} class="market-source-state" data-testid="market-source-state" data-name={s.name} data-state={s.state}
          title={s.detail ?? s.url ?? ''}>
          {sourceLabel(s.name)}: {s.state === 'online' ? `${s.packages ?? 0} packages` : `offline (${s.reason ?? 'unknown'})`}
        </span>
      ))}
    </div>
  );
}

function Filters(props: { all: MarketEntry[]; q: string; task: string; source: string; set: (k: 'q' | 'task' | 'source', v: string) => void }) {
  const tasks = [...new Set(props.all.map((e) => e.task).filter(Boolean))].sort();
  const sources = [...new Set(props.all.map((e) => e.source))].sort();
  return (
    <div class="market-filters">
      <input class="input" type="search" placeholder="Search the market" data-testid="market-search" value={props.q}
        onInput={(ev) => props.set('q', ev.currentTarget.value)} />
      <select class="input" data-testid="market-task" value={props.task} onChange={(ev) => props.set('task', ev.currentTarget.value)}>
        <option value="">All tasks</option>
        {tasks.map((t) => <option key={t} value={t}>{t}</option>)}
      </select>
      <select class="input" data-testid="market-source" value={props.source} onChange={(ev) => props.set('source', ev.currentTarget.value)}>
        <option value="">All sources</option>
        {sources.map((s) => <option key={s} value={s}>{sourceLabel(s)}</option>)}
      </select>
    </div>
  );
}

export function MarketBrowser({ projectId }: { projectId?: string }) {
  const [all, setAll] = useState<MarketEntry[]>([]);
  const [shown, setShown] = useState<MarketEntry[] | null>(null);
  const [filters, setFilters] = useState({ q: '', task: '', source: '' });
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<Open | null>(null);
  const [sources, setSources] = useState<SourceStatus[]>([]);
  useEffect(() => {
    listMarket().then(setAll, () => undefined);
    listSources().then(setSources, () => undefined);
  }, []);
  useEffect(() => {
    // Typing sends a query per key: only the answer to the latest one is shown.
    let latest = true;
    setError(null);
    listMarket(filters).then((found) => latest && setShown(found), (err) => latest && setError(errorMessage(err)));
    return () => {
      latest = false;
    };
  }, [filters.q, filters.task, filters.source]);
  if (open) return <CardPage id={open.id} source={open.source} projectId={projectId} onBack={() => setOpen(null)} />;
  return (
    <div class="market" data-testid="market">
      <Filters all={all} {...filters} set={(k, v) => setFilters({ ...filters, [k]: v })} />
      <Sources sources={sources} />
      {error && <div class="panel-message">The market cannot be read: {error}</div>}
      {!shown && !error && <div class="panel-message">Loading the market…</div>}
      {shown && !shown.length && <div class="panel-message" data-testid="market-empty">No package matches.</div>}
      <div class="market-grid">
        {(shown ?? []).map((e) => <Card key={`${e.source}/${e.id}`} entry={e} onOpen={() => setOpen({ id: e.id, source: e.source })} />)}
      </div>
    </div>
  );
}

// One folder's MNN-LLM work: export it to MNN-LLM, chat with the export, benchmark it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { listDir, readFile } from '../../api/files';
import { errorMessage } from '../../api/client';
import { startLlmRun } from '../../api/llm';
import type { ToolRun } from '../../api/tools';
import { fetchRun, progress, putRun, runs } from '../modeltools/store';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { pickedDevice } from '../debug/run';
import { ChatSection, deviceName, RunsOn } from './ChatSection';
import { BenchTable } from './BenchTable';
import { EmbedSection } from './EmbedSection';
import { NoModel } from './NoModel';
import { openLlm } from './open';
import type { SectionProps } from './sections';
// The tables (export files, benchmark, similarity) are the model tools' own.
import '../modeltools/modeltools.css';
import './llm.css';

type Kind = 'loading' | 'source' | 'export' | 'embedding' | 'neither';

// llmexport makes an embedding model of a folder whose name says so; the export records the name.
const EMBEDDING_NAMES = /bge|gte|qwen3-embedding/i;

async function exportKind(folder: string): Promise<Kind> {
  const args = await readFile(pid(), `${folder}/export_args.json`).catch(() => null);
  const source = args ? String((JSON.parse(args.content ?? '{}') as { path?: string }).path ?? '') : '';
  return EMBEDDING_NAMES.test(source.slice(source.lastIndexOf('/') + 1)) ? 'embedding' : 'export';
}

function useFolderKind(folder: string): Kind {
  const [kind, setKind] = useState<Kind>('loading');
  useEffect(() => {
    listDir(pid(), folder)
      .then(async (entries) => {
        const names = new Set(entries.map((e) => e.name));
        if (names.has('llm_config.json')) setKind(await exportKind(folder));
        else setKind(names.has('config.json') ? 'source' : 'neither');
      })
      .catch(() => setKind('neither'));
  }, [folder]);
  return kind;
}

function useRun(id: string | undefined): ToolRun | undefined {
  useEffect(() => {
    if (id && !runs.value[id]) void fetchRun(id).catch(() => undefined);
  }, [id]);
  return id ? runs.value[id] : undefined;
}

function RunStatus({ run }: { run: ToolRun | undefined }) {
  if (!run) return null;
  const step = progress.value[run.id];
  const text = run.status === 'running' && step ? `running: ${step.stage}` : run.status;
  return (
    <div class="llm-status" data-testid="llm-run-status" data-status={run.status}>
      {text}{run.error ? `: ${run.error}` : ''}
    </div>
  );
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function ExportSection({ folder, params, update }: SectionProps) {
  const [bits, setBits] = useState(String(params.bits ?? '4'));
  const [output, setOutput] = useState(String(params.output ?? `${folder}-mnn-q${bits}`));
  const [error, setError] = useState<string | null>(null);
  const [runId, setRunId] = useState(params.exportRun as string | undefined);
  const run = useRun(runId);
  const start = async () => {
    setError(null);
    try {
      const started = await startLlmRun(pid(), 'llm-export', { model_dir: folder, quant_bit: Number(bits), output });
      putRun(started);
      setRunId(started.id);
      update({ exportRun: started.id, bits, output });
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const result = run?.status === 'succeeded' ? (run.result as Record<string, unknown>) : null;
  return (
    <section class="llm-section" data-testid="llm-export">
      <h3>Export to MNN-LLM</h3>
      <div class="llm-row">
        <label>Weights <select data-testid="llm-bits" value={bits} onChange={(e) => {
          const value = (e.target as HTMLSelectElement).value;
          setBits(value);
          setOutput(`${folder}-mnn-q${value}`);
        }}>
          <option value="4">4 bit</option><option value="8">8 bit</option><option value="16">16 bit (bf16)</option>
        </select></label>
        <label>Output folder <input data-testid="llm-output" value={output} onInput={(e) => setOutput((e.target as HTMLInputElement).value)} /></label>
        <button type="button" class="btn btn-small btn-primary" data-testid="llm-export-run" disabled={run?.status === 'running' || run?.status === 'queued'} onClick={() => void start()}>Export</button>
      </div>
      {error && <div class="llm-error" role="alert">{error}</div>}
      <RunStatus run={run} />
      {result && (
        <div class="llm-result" data-testid="llm-export-result">
          <div>{String(result.model_type)} · {Number(result.parameters ?? 0).toLocaleString()} parameters · {kb(Number(result.total_bytes))}</div>
          <table class="tool-table"><tbody>
            {Object.entries(result.files as Record<string, number>).map(([name, size]) => (
              <tr key={name}><td>{name}</td><td>{kb(size)}</td></tr>
            ))}
          </tbody></table>
          <button type="button" class="btn btn-small" data-testid="llm-open-export" onClick={() => openLlm(String(result.output))}>Chat and benchmark…</button>
        </div>
      )}
    </section>
  );
}

function BenchSection({ folder, params, update }: SectionProps) {
  const [lengths, setLengths] = useState(String(params.lengths ?? '64,256'));
  const [error, setError] = useState<string | null>(null);
  const [runId, setRunId] = useState(params.benchRun as string | undefined);
  const run = useRun(runId);
  const start = async () => {
    setError(null);
    try {
      const prompt_tokens = lengths.split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
      const device = pickedDevice.value;
      const started = await startLlmRun(pid(), 'llm-bench', {
        model: folder, prompt_tokens, gen_tokens: 32, repeats: 3, ...(device ? { device_id: device } : {}),
      });
      putRun(started);
      setRunId(started.id);
      update({ benchRun: started.id, lengths });
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <section class="llm-section" data-testid="llm-bench">
      <h3>Benchmark</h3>
      <div class="llm-row">
        <label>Prompt lengths <input data-testid="llm-bench-lengths" value={lengths} onInput={(e) => setLengths((e.target as HTMLInputElement).value)} /></label>
        <RunsOn />
        <button type="button" class="btn btn-small" data-testid="llm-bench-run" onClick={() => void start()}>Run</button>
      </div>
      {error && <div class="llm-error" role="alert">{error}</div>}
      <RunStatus run={run} />
      {run?.status === 'succeeded' && <BenchTable result={run.result as Record<string, unknown>} />}
      {run?.args.device_id ? <div class="llm-status" data-testid="llm-bench-where">on {deviceName(String(run.args.device_id))}</div> : null}
    </section>
  );
}

export function LlmPanel({ api, params }: PanelProps) {
  const folder = String(params.folder);
  const kind = useFolderKind(folder);
  // Sections update their own keys; keep the others' as they last set them.
  const saved = useRef<Record<string, unknown>>({ ...params });
  const update = (values: Record<string, unknown>) => {
    saved.current = { ...saved.current, ...values };
    api.updateParameters(saved.current);
  };
  const section: SectionProps = { folder, params, update };
  return (
    <div class="llm-panel" data-testid="llm-panel">
      {kind === 'loading' && <div class="llm-status">Reading {folder}…</div>}
      {kind === 'neither' && <NoModel folder={folder} />}
      {kind === 'source' && <ExportSection {...section} />}
      {kind === 'export' && <ChatSection {...section} />}
      {kind === 'export' && <BenchSection {...section} />}
      {kind === 'embedding' && <EmbedSection {...section} />}
    </div>
  );
}

export const llmPanel = (props: PanelProps) => <LlmPanel {...props} />;

// Embed a few texts with an exported embedding model and show their cosine similarities.
import { useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { embed, type EmbedAnswer } from '../../api/llm';
import { pid } from '../../kernel/session';
import type { SectionProps } from './sections';

export function EmbedSection({ folder, params, update }: SectionProps) {
  const [text, setText] = useState(String(params.texts ?? 'a phone runs the model\na board runs the model\nthe weather is cold'));
  const [answer, setAnswer] = useState<EmbedAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const texts = text.split('\n').map((t) => t.trim()).filter(Boolean);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setAnswer(await embed(pid(), { model: folder, texts }));
      update({ texts: text });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="llm-section" data-testid="llm-embed">
      <h3>Embeddings</h3>
      <textarea class="llm-grow" rows={4} data-testid="llm-embed-texts" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      <div class="llm-row">
        <button type="button" class="btn btn-small btn-primary" data-testid="llm-embed-run" disabled={busy || !texts.length} onClick={() => void run()}>Embed one text a line</button>
      </div>
      {error && <div class="llm-error" role="alert">{error}</div>}
      {answer && (
        <table class="tool-table" data-testid="llm-similarity">
          <caption>Cosine similarity ({answer.dimensions} dimensions)</caption>
          <thead><tr><th />{texts.map((_, i) => <th key={i}>{i + 1}</th>)}</tr></thead>
          <tbody>
            {answer.similarity.map((row, i) => (
              <tr key={i}><th title={texts[i]}>{i + 1}. {texts[i]}</th>{row.map((v, j) => <td key={j}>{v.toFixed(3)}</td>)}</tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// The chat playground: a transcript kept in the panel's parameters (it survives a reload),
// tokens streamed from the tab socket's `llm` channel, and each answer's figures.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { chat, stopChat, type ChatAnswer, type ChatMessage, type ChatSampler } from '../../api/llm';
import { DevicePicker } from '../debug/RunToolbar';
import { pickedDevice } from '../debug/run';
import { devices } from '../../kernel/devices';
import { pid, session } from '../../kernel/session';
import type { SectionProps } from './sections';

interface Turn extends ChatMessage {
  figures?: ChatAnswer & { where?: string };
}

const MAX_TURNS = 100;

interface Figured extends ChatAnswer {
  where?: string;
}

const ENDINGS: Record<ChatAnswer['finish_reason'], string> = {
  stop: '', length: ' · stopped at the token limit', stopped: ' · stopped',
};

function Figures({ answer }: { answer: Figured }) {
  return (
    <div class="llm-figures" data-testid="llm-figures">
      {answer.where ? `on ${answer.where} · ` : ''}{answer.prompt_tokens} prompt tokens · {answer.generated_tokens} generated · prefill{' '}
      {answer.prefill_tps.toLocaleString()} tok/s · decode {answer.decode_tps.toLocaleString()} tok/s · first token{' '}
      {answer.ttft_ms.toFixed(1)} ms{ENDINGS[answer.finish_reason]}
    </div>
  );
}

/** Where the panel's chats and benchmarks run: the tab's picked device, else this machine. */
export function RunsOn() {
  return <label>Runs on <DevicePicker noneLabel="This machine" /></label>;
}

export function deviceName(id: string | null): string | undefined {
  return id ? (devices.value.find((d) => d.id === id)?.name ?? id) : undefined;
}

function useStream(chatId: string | null): string {
  const [text, setText] = useState('');
  useEffect(() => {
    setText('');
    if (!chatId) return undefined;
    return session().socket.on('llm', (msg) => {
      if (msg.type === 'token' && msg.data.chat_id === chatId) setText((t) => t + msg.data.text);
    });
  }, [chatId]);
  return text;
}

export function ChatSection({ folder, params, update }: SectionProps) {
  const [turns, setTurns] = useState<Turn[]>((params.turns as Turn[] | undefined) ?? []);
  const [system, setSystem] = useState(String(params.system ?? 'You are a helpful assistant.'));
  const [maxTokens, setMaxTokens] = useState(String(params.maxTokens ?? '64'));
  const [sampler, setSampler] = useState<ChatSampler['type']>(params.sampler === 'temperature' ? 'temperature' : 'greedy');
  const [draft, setDraft] = useState('');
  const [chatId, setChatId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const streamed = useStream(chatId);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => end.current?.scrollIntoView?.({ block: 'nearest' }), [turns.length, streamed]);

  const send = async () => {
    const content = draft.trim();
    if (!content || chatId) return;
    const asked: Turn[] = [...turns, { role: 'user', content }];
    const id = crypto.randomUUID().replace(/-/g, '');
    setTurns(asked);
    setDraft('');
    setError(null);
    setChatId(id);
    try {
      const messages: ChatMessage[] = [{ role: 'system', content: system }, ...asked.map(({ role, content: c }) => ({ role, content: c }))];
      const device = pickedDevice.value;
      const answer = await chat(pid(), {
        model: folder, messages, max_new_tokens: Number(maxTokens), sampler: { type: sampler }, stream: true, chat_id: id,
        device_id: device ?? undefined,
      });
      const figures = { ...answer, where: deviceName(device) };
      const next = [...asked, { role: 'assistant' as const, content: answer.text, figures }].slice(-MAX_TURNS);
      setTurns(next);
      update({ turns: next, system, maxTokens, sampler });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setChatId(null);
    }
  };

  return (
    <section class="llm-section" data-testid="llm-chat">
      <h3>Chat</h3>
      <div class="llm-row">
        <label class="llm-grow">System prompt <input data-testid="llm-system" value={system} onInput={(e) => setSystem((e.target as HTMLInputElement).value)} /></label>
        <label>Max new tokens <input data-testid="llm-max-tokens" type="number" min="1" max="4096" value={maxTokens} onInput={(e) => setMaxTokens((e.target as HTMLInputElement).value)} /></label>
        <label>Sampling <select data-testid="llm-sampler" value={sampler} onChange={(e) => setSampler((e.target as HTMLSelectElement).value as ChatSampler['type'])}>
          <option value="greedy">greedy</option>
          <option value="temperature">temperature 0.8, top 40</option>
        </select></label>
        <RunsOn />
        <button type="button" class="btn btn-small" data-testid="llm-clear" disabled={!!chatId} onClick={() => { setTurns([]); update({ turns: [] }); }}>Clear</button>
      </div>
      <div class="llm-transcript" data-testid="llm-transcript">
        {turns.map((turn, index) => (
          <div key={index} class={`llm-turn llm-${turn.role}`} data-testid={`llm-turn-${turn.role}`}>
            <div class="llm-text">{turn.content}</div>
            {turn.figures && <Figures answer={turn.figures} />}
          </div>
        ))}
        {chatId && <div class="llm-turn llm-assistant" data-testid="llm-streaming"><div class="llm-text">{streamed || '…'}</div></div>}
        <div ref={end} />
      </div>
      {error && <div class="llm-error" role="alert">{error}</div>}
      <div class="llm-row">
        <textarea class="llm-grow" data-testid="llm-input" rows={2} placeholder="Ask the model (Enter sends, Shift+Enter a new line)"
          value={draft} onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); void send(); } }} />
        {chatId ? (
          <button type="button" class="btn btn-small" data-testid="llm-stop" onClick={() => void stopChat(pid(), chatId).catch((err) => setError(errorMessage(err)))}>Stop</button>
        ) : (
          <button type="button" class="btn btn-small btn-primary" data-testid="llm-send" disabled={!draft.trim()} onClick={() => void send()}>Send</button>
        )}
      </div>
    </section>
  );
}

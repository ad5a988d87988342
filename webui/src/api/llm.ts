// MNN-LLM: chat with an exported model (export and bench are tool runs: api/tools.ts).
import { request } from './client';
import type { ToolRun } from './tools';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatSampler {
  type: 'greedy' | 'temperature';
  temperature?: number;
  top_k?: number;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_new_tokens?: number;
  sampler?: ChatSampler;
  threads?: number;
  stream?: boolean;
  chat_id?: string;
  /** Answer on this paired device, through its agent; absent: on the workbench's machine. */
  device_id?: string;
}

export interface ChatAnswer {
  text: string;
  prompt_tokens: number;
  generated_tokens: number;
  prefill_ms: number;
  decode_ms: number;
  prefill_tps: number;
  decode_tps: number;
  ttft_ms: number;
  finish_reason: 'stop' | 'length' | 'stopped';
}

/** `token` events on the tab socket's `llm` channel. */
export interface LlmTokenEvent {
  chat_id: string;
  text: string;
}

export const chat = (pid: string, body: ChatRequest) =>
  request<ChatAnswer>('POST', `/api/projects/${encodeURIComponent(pid)}/llm/chat`, { json: body });

/** Ends the answer of `chatId` in progress; `stopped` is false when there was none. */
export const stopChat = (pid: string, chatId: string) =>
  request<{ stopped: boolean }>('POST', `/api/projects/${encodeURIComponent(pid)}/llm/chat/${encodeURIComponent(chatId)}/stop`);

/** Export and bench are model-tool runs (GET /api/tool-runs/{id} follows them). */
export const startLlmRun = (pid: string, tool: 'llm-export' | 'llm-bench', args: Record<string, unknown>) =>
  request<ToolRun>('POST', `/api/projects/${encodeURIComponent(pid)}/tools/${tool}`, { json: args });

export interface EmbedRequest {
  model: string;
  texts: string[];
  threads?: number;
}

export interface EmbedAnswer {
  dimensions: number;
  similarity: number[][];
}

export const embed = (pid: string, body: EmbedRequest) =>
  request<EmbedAnswer>('POST', `/api/projects/${encodeURIComponent(pid)}/llm/embed`, { json: body });

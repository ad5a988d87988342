// MNN-LLM: chat with an exported model (export and bench are tool runs: api/tools.ts).
import { request } from './client';
import type { ToolRun } from './tools';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type ChatMessage = Schemas['Message'];

export type ChatSampler = Schemas['Sampler'];

export type ChatRequest = Schemas['ChatRequest'];

export type ChatAnswer = Schemas['ChatAnswer'];

/** `token` events on the tab socket's `llm` channel. */
export type LlmTokenEvent = Schemas['ChatToken'];

export const chat = (pid: string, body: ChatRequest) =>
  request<ChatAnswer>('POST', `/api/projects/${encodeURIComponent(pid)}/llm/chat`, { json: body });

/** Ends the answer of `chatId` in progress; `stopped` is false when there was none. */
export const stopChat = (pid: string, chatId: string) =>
  request<{ stopped: boolean }>('POST', `/api/projects/${encodeURIComponent(pid)}/llm/chat/${encodeURIComponent(chatId)}/stop`);

/** Export and bench are model-tool runs (GET /api/tool-runs/{id} follows them). */
export const startLlmRun = (pid: string, tool: 'llm-export' | 'llm-bench', args: Record<string, unknown>) =>
  request<ToolRun>('POST', `/api/projects/${encodeURIComponent(pid)}/tools/${tool}`, { json: args });

export type EmbedRequest = Schemas['EmbedRequest'];

export type EmbedAnswer = Schemas['EmbedAnswer'];

export const embed = (pid: string, body: EmbedRequest) =>
  request<EmbedAnswer>('POST', `/api/projects/${encodeURIComponent(pid)}/llm/embed`, { json: body });

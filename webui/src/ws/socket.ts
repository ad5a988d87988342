// One websocket per browser tab: resumes with `since=<last seq>` after a drop, answers pings,
// and exposes its connection state as a signal for the status bar.
import { signal } from '@preact/signals';
import type { Envelope } from '../api/types';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'offline';
export type EnvelopeHandler = (msg: Envelope) => void;

const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
// After this many failed attempts in a row the tab reports itself offline (it keeps trying).
const OFFLINE_AFTER = 4;

export class ProjectSocket {
  readonly state = signal<ConnectionState>('connecting');
  private ws: WebSocket | null = null;
  private lastSeq = 0;
  private failures = 0;
  private timer: number | undefined;
  private closed = false;
  private readonly handlers = new Map<string, Set<EnvelopeHandler>>();

  constructor(private readonly path: string) {}

  /** Subscribe to one channel ("files", "git", …) or "*" for everything; returns an unsubscribe. */
  on(channel: string, handler: EnvelopeHandler): () => void {
    const set = this.handlers.get(channel) ?? new Set<EnvelopeHandler>();
    set.add(handler);
    this.handlers.set(channel, set);
    return () => set.delete(handler);
  }

  send(channel: string, type: string, data: Record<string, unknown> = {}): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ v: 1, seq: 0, channel, type, data }));
  }

  connect(): void {
    this.closed = false;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const query = this.lastSeq > 0 ? `?since=${this.lastSeq}` : '';
    const ws = new WebSocket(`${proto}//${location.host}${this.path}${query}`);
    this.ws = ws;
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = () => this.dropped(ws);
  }

  close(): void {
    this.closed = true;
    window.clearTimeout(this.timer);
    this.ws?.close();
  }

  private receive(raw: unknown): void {
    if (typeof raw !== 'string') return;
    let msg: Envelope;
    try {
      msg = JSON.parse(raw) as Envelope;
    } catch {
      return;
    }
    if (msg.seq > this.lastSeq) this.lastSeq = msg.seq;
    if (msg.channel === 'sys') this.system(msg);
    for (const key of [msg.channel, '*']) {
      this.handlers.get(key)?.forEach((handler) => handler(msg));
    }
  }

  private system(msg: Envelope): void {
    if (msg.type === 'hello') {
      // The first connection starts at the server's current seq, so that a reconnect asks for
      // exactly what it missed; a resumed one gets its replay right after this.
      const seq = Number(msg.data.seq);
      if (this.lastSeq === 0 && Number.isFinite(seq)) this.lastSeq = seq;
      this.failures = 0;
      this.state.value = 'connected';
    } else if (msg.type === 'ping') {
      this.send('sys', 'pong');
    }
  }

  private dropped(ws: WebSocket): void {
    if (ws !== this.ws || this.closed) return;
    this.failures += 1;
    this.state.value = this.failures >= OFFLINE_AFTER ? 'offline' : 'reconnecting';
    const delay = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** (this.failures - 1));
    this.timer = window.setTimeout(() => this.connect(), delay);
  }
}

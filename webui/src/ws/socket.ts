// One websocket per browser tab: resumes with `since=<last seq>` after a drop, answers pings,
// and exposes its connection state as a signal for the status bar. A close with 1008 before the
// server's hello is the server refusing this person the socket (docs/api.md): it is shown, never
// retried. A 1008 on a socket that was open (access changed, e.g. lowered to viewer) is retried
// once as any drop, if the person is still signed in: the new attempt is admitted as the person now
// is, or refused.
import { signal } from '@preact/signals';
import type { Channel, ChannelEvent, Envelope } from '../api/types';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'offline' | 'refused';
export type EnvelopeHandler = (msg: Envelope) => void;
/** What a handler of `on(channel)` gets: that channel's events (every event for "*"). */
export type EventOf<C extends Channel | '*'> = C extends Channel ? ChannelEvent<C> : Envelope;

const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
// After this many failed attempts in a row the tab reports itself offline (it keeps trying).
const OFFLINE_AFTER = 4;
const REFUSED = 1008;

const live = new Set<ProjectSocket>();

/** Asked before a socket the server closed with 1008 after admitting it is opened again (access
 * changed, docs/team.md): whether to retry. Team mode asks the server who is signed in, so a tab
 * whose sign-in ended elsewhere goes to the sign-in page instead of knocking again only to be
 * refused at the handshake; by default, retry. */
let retryAfterAccessChange: () => Promise<boolean> = () => Promise.resolve(true);

export function checkBeforeRetryAfterAccessChange(check: () => Promise<boolean>): void {
  retryAfterAccessChange = check;
}

/** Every socket of the page closed for good, not reconnected (signing out: a reconnect would
 * only be refused at the handshake). */
export function closeAllSockets(): void {
  for (const socket of [...live]) socket.close();
}

export class ProjectSocket {
  readonly state = signal<ConnectionState>('connecting');
  /** The server's reason once it refused the socket (state `refused`). */
  readonly refusal = signal<string | null>(null);
  private ws: WebSocket | null = null;
  private lastSeq = 0;
  private failures = 0;
  private greeted = false;
  private timer: number | undefined;
  private closed = false;
  private readonly handlers = new Map<string, Set<EnvelopeHandler>>();

  constructor(private readonly path: string) {}

  /** Subscribe to one channel ("files", "git", …) or "*" for everything; returns an unsubscribe.
   * The handler gets the channel's events, typed: `msg.type` narrows `msg.data`. */
  on<C extends Channel | '*'>(channel: C, handler: (msg: EventOf<C>) => void): () => void {
    const set = this.handlers.get(channel) ?? new Set<EnvelopeHandler>();
    // the messages under `channel` are that channel's events (receive() files them by channel)
    const any = handler as EnvelopeHandler;
    set.add(any);
    this.handlers.set(channel, set);
    return () => set.delete(any);
  }

  send(channel: string, type: string, data: Record<string, unknown> = {}): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ v: 1, seq: 0, channel, type, data }));
  }

  connect(): void {
    this.closed = false;
    live.add(this);
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const query = this.lastSeq > 0 ? `?since=${this.lastSeq}` : '';
    const ws = new WebSocket(`${proto}//${location.host}${this.path}${query}`);
    this.ws = ws;
    this.greeted = false;
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = (ev) => this.dropped(ws, ev);
  }

  close(): void {
    live.delete(this);
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

  private system(msg: ChannelEvent<'sys'>): void {
    if (msg.type === 'hello') {
      // The first connection starts at the server's current seq, so that a reconnect asks for
      // exactly what it missed; a resumed one gets its replay right after this.
      const seq = msg.data.seq;
      if (this.lastSeq === 0 && Number.isFinite(seq)) this.lastSeq = seq;
      this.failures = 0;
      this.greeted = true;
      this.state.value = 'connected';
    } else if (msg.type === 'ping') {
      this.send('sys', 'pong');
    }
  }

  private dropped(ws: WebSocket, ev: CloseEvent): void {
    if (ws !== this.ws || this.closed) return;
    if (ev.code === REFUSED && !this.greeted) {
      this.closed = true;
      this.refusal.value = ev.reason || 'the server refused the connection';
      this.state.value = 'refused';
      return;
    }
    this.failures += 1;
    this.state.value = this.failures >= OFFLINE_AFTER ? 'offline' : 'reconnecting';
    if (ev.code !== REFUSED) return this.retry();
    void retryAfterAccessChange().then((again) => {
      if (again && ws === this.ws && !this.closed) this.retry();
    });
  }

  private retry(): void {
    const delay = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** (this.failures - 1));
    this.timer = window.setTimeout(() => this.connect(), delay);
  }
}

// One terminal's websocket (docs/ide.md): reattaches by id after a drop or a reload, so the shell
// and its output survive; a second tab of the project attaches beside the first (shared, like
// tmux); only close() ends the terminal on the server.
export interface TerminalEvents {
  output: (text: string, replay: boolean) => void;
  /** The id to reattach with; `created` is false when an existing shell was reattached. */
  attached: (id: string, created: boolean) => void;
  exited: (code: number | null) => void;
  status: (text: string | null) => void;
}

const RETRY_MS = [250, 500, 1000, 2000, 5000];

export class TerminalConnection {
  private ws: WebSocket | null = null;
  private retries = 0;
  private timer: number | undefined;
  private ended = false;
  private replayNext = false;
  private attached = false;
  /** Keys typed before the shell is attached (at start, or while reconnecting) go after it. */
  private typedAhead: string[] = [];

  constructor(
    private readonly pid: string,
    private id: string | null,
    private readonly events: TerminalEvents,
    private size: { cols: number; rows: number },
  ) {}

  connect(): void {
    const query = new URLSearchParams({ cols: String(this.size.cols), rows: String(this.size.rows) });
    if (this.id) query.set('id', this.id);
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/api/projects/${this.pid}/terminal?${query}`);
    this.ws = ws;
    ws.onmessage = (ev) => this.receive(String(ev.data));
    ws.onclose = (ev) => this.dropped(ws, ev);
  }

  private receive(raw: string): void {
    const msg = JSON.parse(raw) as { type: string; id?: string; created?: boolean; data?: string; code?: number | null };
    if (msg.type === 'hello') {
      this.retries = 0;
      this.id = msg.id ?? null;
      // A reattach replays the scrollback: the view is cleared and redrawn from it.
      this.replayNext = !msg.created;
      this.attached = true;
      this.events.status(null);
      this.events.attached(this.id ?? '', Boolean(msg.created));
      for (const data of this.typedAhead.splice(0)) this.input(data);
    } else if (msg.type === 'output') {
      this.events.output(msg.data ?? '', this.replayNext);
      this.replayNext = false;
    } else if (msg.type === 'exit') {
      this.ended = true;
      this.events.exited(msg.code ?? null);
    }
  }

  private dropped(ws: WebSocket, ev: CloseEvent): void {
    if (ws !== this.ws || this.ended) return;
    this.attached = false;
    // 1008: the server refused this person the terminal (docs/security.md, "Websocket
    // refusals"): reconnecting would not help.
    if (ev.code === 1008) {
      this.ended = true;
      this.events.status(`Not allowed: ${ev.reason || 'the server refused the terminal'}`);
      return;
    }
    const delay = RETRY_MS[Math.min(this.retries, RETRY_MS.length - 1)];
    this.retries += 1;
    this.events.status('Reconnecting…');
    this.timer = window.setTimeout(() => this.connect(), delay);
  }

  private send(message: Record<string, unknown>): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  input(data: string): void {
    if (this.attached && this.ws?.readyState === WebSocket.OPEN) this.send({ type: 'input', data });
    else if (!this.ended) this.typedAhead.push(data);
  }

  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    this.send({ type: 'resize', cols, rows });
  }

  /** Ends the shell and everything started in it. */
  close(): void {
    this.ended = true;
    window.clearTimeout(this.timer);
    this.send({ type: 'close' });
  }
}

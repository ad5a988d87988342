// A JSON-RPC client for the language server websocket (docs/ide.md): requests with ids, the
// server's notifications to listeners, and the server's own requests answered with null.
// After a drop it reconnects, initializes again and calls `onReady` so documents are reopened;
// a close with 1008 (the server refused this person, e.g. a viewer) is final: its reason goes once
// to `onRefused`.

type Listener = (params: unknown) => void;
interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

const RETRY_MS = [500, 1000, 2000, 5000, 10_000];

const CAPABILITIES = {
  textDocument: {
    synchronization: { didSave: false, dynamicRegistration: false },
    completion: { completionItem: { snippetSupport: false, documentationFormat: ['markdown', 'plaintext'] } },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    definition: { linkSupport: false },
    publishDiagnostics: { relatedInformation: false },
  },
  workspace: { configuration: false },
};

export class LspClient {
  rootUri = '';
  ready = false;
  private ws: WebSocket | null = null;
  private nextId = 0;
  private pending = new Map<number, Pending>();
  private listeners = new Map<string, Listener>();
  private retries = 0;
  private waiting: (() => void)[] = [];

  constructor(
    private readonly pid: string,
    private readonly onReady: () => void,
    private readonly onRefused: (reason: string) => void = () => {},
  ) {}

  on(method: string, listener: Listener): void {
    this.listeners.set(method, listener);
  }

  connect(): void {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/api/projects/${this.pid}/lsp`);
    this.ws = ws;
    ws.onmessage = (ev) => void this.receive(JSON.parse(String(ev.data)) as Record<string, unknown>);
    ws.onclose = (ev) => this.dropped(ws, ev);
  }

  private dropped(ws: WebSocket, ev: CloseEvent): void {
    if (ws !== this.ws) return;
    this.ready = false;
    for (const waiting of this.pending.values()) waiting.reject(new Error('the language server connection dropped'));
    this.pending.clear();
    if (ev.code === 1008) {
      this.onRefused(ev.reason || 'the server refused the language server');
      return;
    }
    const delay = RETRY_MS[Math.min(this.retries, RETRY_MS.length - 1)];
    this.retries += 1;
    window.setTimeout(() => this.connect(), delay);
  }

  private async receive(msg: Record<string, unknown>): Promise<void> {
    if (msg.method === 'mnnwb/hello') {
      this.rootUri = String((msg.params as { rootUri: string }).rootUri);
      await this.initialize();
      return;
    }
    if (typeof msg.id === 'number' && !('method' in msg)) {
      const waiting = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) waiting?.reject(new Error(String((msg.error as { message?: string }).message)));
      else waiting?.resolve(msg.result);
      return;
    }
    if (typeof msg.method !== 'string') return;
    if ('id' in msg) this.raw({ jsonrpc: '2.0', id: msg.id, result: null });
    else this.listeners.get(msg.method)?.(msg.params);
  }

  private async initialize(): Promise<void> {
    await this.call('initialize', { processId: null, rootUri: this.rootUri, capabilities: CAPABILITIES }, true);
    this.notify('initialized', {}, true);
    this.ready = true;
    this.retries = 0;
    this.onReady();
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** Resolves once the server answers requests, or after `ms` (then `ready` is still false). */
  whenReady(ms: number): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      window.setTimeout(resolve, ms);
    });
  }

  private raw(message: Record<string, unknown>): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  call<T>(method: string, params: unknown, starting = false): Promise<T> {
    if (!this.ready && !starting) return Promise.reject(new Error('the language server is starting'));
    this.nextId += 1;
    const id = this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.raw({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown, starting = false): void {
    if (this.ready || starting) this.raw({ jsonrpc: '2.0', method, params });
  }
}

// A Debug Adapter Protocol client whose transport is the tab's websocket: requests carry a seq
// and resolve with their response; events go to the handlers registered for their name.

export interface DapMessage {
  seq: number;
  type: 'request' | 'response' | 'event';
  command?: string;
  request_seq?: number;
  success?: boolean;
  message?: string;
  event?: string;
  body?: Record<string, unknown>;
  arguments?: Record<string, unknown>;
}

type EventHandler = (body: Record<string, unknown>) => void;

interface Pending {
  resolve: (body: Record<string, unknown>) => void;
  reject: (err: Error) => void;
}

export class DapClient {
  private seq = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, Set<EventHandler>>();

  constructor(
    readonly sid: string,
    private readonly send: (msg: DapMessage) => void,
  ) {}

  request<T = Record<string, unknown>>(command: string, args: Record<string, unknown> = {}): Promise<T> {
    const seq = this.seq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(seq, { resolve: resolve as Pending['resolve'], reject });
      this.send({ seq, type: 'request', command, arguments: args });
    });
  }

  on(event: string, handler: EventHandler): void {
    const set = this.handlers.get(event) ?? new Set<EventHandler>();
    set.add(handler);
    this.handlers.set(event, set);
  }

  /** Resolves on the next `event` (e.g. `initialized`). */
  once(event: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      const handler: EventHandler = (body) => {
        this.handlers.get(event)?.delete(handler);
        resolve(body);
      };
      this.on(event, handler);
    });
  }

  receive(msg: DapMessage): void {
    if (msg.type === 'response' && msg.request_seq !== undefined) {
      const pending = this.pending.get(msg.request_seq);
      this.pending.delete(msg.request_seq);
      if (!pending) return;
      if (msg.success) pending.resolve(msg.body ?? {});
      else pending.reject(new Error(msg.message || `${msg.command} failed`));
    } else if (msg.type === 'event' && msg.event) {
      this.handlers.get(msg.event)?.forEach((handler) => handler(msg.body ?? {}));
    }
  }

  /** The session is over: nothing more will answer the requests still waiting. */
  close(): void {
    this.pending.forEach((p) => p.reject(new Error('the debug session ended')));
    this.pending.clear();
    this.handlers.clear();
  }
}

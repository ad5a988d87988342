// The one HTTP client of the page: same-origin cookie auth, the CSRF header on writes, and the
// tab's client id so the tab can recognise its own file events when they come back.

const CLIENT_KEY = 'mnnwb.client';

function makeClientId(): string {
  const existing = sessionStorage.getItem(CLIENT_KEY);
  if (existing) return existing;
  const id = crypto.randomUUID();
  sessionStorage.setItem(CLIENT_KEY, id);
  return id;
}

export const clientId: string = makeClientId();

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly body: Record<string, unknown>,
  ) {
    super(detail);
  }
}

let signInOnUnauthorized = false;

/** In team mode an expired or ended session sends the browser to the sign-in page, which returns here. */
export function redirectToSignInOnUnauthorized(on: boolean): void {
  signInOnUnauthorized = on;
}

export function signInUrl(): string {
  return `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  json?: unknown;
  form?: FormData;
  /** A raw body (a file), sent with its own type. */
  body?: Blob;
  query?: Record<string, string | boolean | undefined>;
  /** Let the request finish after the page is gone (small bodies only). */
  keepalive?: boolean;
}

export function apiUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function headersFor(method: Method, opts: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = { 'X-MNNWB-Client': clientId, Accept: 'application/json' };
  if (method !== 'GET') headers['X-MNNWB-CSRF'] = '1';
  if (opts.json !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.body) headers['Content-Type'] = opts.body.type || 'application/octet-stream';
  return headers;
}

async function errorFrom(res: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    body = {};
  }
  const detail = typeof body.detail === 'string' ? body.detail : `${res.status} ${res.statusText}`;
  const code = typeof body.code === 'string' ? body.code : 'error';
  return new ApiError(res.status, code, detail, body);
}

export async function request<T>(method: Method, path: string, opts: RequestOptions = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path, opts.query), {
      method,
      credentials: 'same-origin',
      keepalive: opts.keepalive,
      headers: headersFor(method, opts),
      body: opts.form ?? opts.body ?? (opts.json !== undefined ? JSON.stringify(opts.json) : undefined),
    });
  } catch {
    throw new ApiError(0, 'network', 'The server cannot be reached.', {});
  }
  if (res.status === 401 && signInOnUnauthorized) location.assign(signInUrl());
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

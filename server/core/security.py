"""Authentication and browser protections (docs/security.md).

One ASGI middleware checks, in order: forwarded headers (only from trusted proxies), the Host
header (DNS rebinding), a ``?token=`` exchange on page loads (local mode), authentication
(``Authorization: Bearer`` or the session cookie), CSRF on state-changing cookie requests, and
the exact Origin of websockets. Everything is denied by default; only the health check, the
static bundle, the device bridge (which authenticates in-protocol) and, in team mode, the login
page are open.

Local mode knows one secret, the token in the data dir. Team mode looks sessions and personal API
tokens up in the database and puts ``"user:<id>"`` on the request instead of ``"local"``.
"""

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from anyio import to_thread
from sqlmodel import Session

from server.core.config import LOOPBACK_HOSTS, Settings
from server.core.error_codes import ErrorCode

COOKIE_NAME = "mnnwb_session"
CSRF_HEADER = "x-mnnwb-csrf"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PUBLIC_PREFIXES = ("/static/", "/bridge/")
PUBLIC_PATHS = frozenset({"/api/health", "/favicon.ico"})
# Open in team mode so people can sign in; the login POST still gets the CSRF check.
LOGIN_PATHS = frozenset({"/login", "/api/auth/login"})

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def load_or_create_token(path: Path) -> str:
    """Read the local token, creating a 256-bit one with 0600 permissions the first time."""
    if path.exists():
        token = path.read_text().strip()
        if len(token) >= 22:
            path.chmod(0o600)
            return token
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    return token


def session_cookie(value: str, secure: bool, max_age: int | None = None) -> str:
    """The Set-Cookie value: HttpOnly, SameSite=Strict, and Secure whenever TLS is in use."""
    cookie = f"{COOKIE_NAME}={value}; Path=/; HttpOnly; SameSite=Strict"
    if max_age is not None:
        cookie += f"; Max-Age={max_age}"
    return cookie + ("; Secure" if secure else "")


# Team mode's lookup of a Bearer token or a session cookie in the database: it lives with the users
# (``server.users.sessions.request_credential``) and is handed in by ``create_app``, so the core
# does not import a domain package (docs/architecture.md, "Layers").
CredentialLookup = Callable[[Session, "str | None", "str | None"], Any]
EngineLookup = Callable[[Scope], Any]
"""The database engine of the app serving a scope (handed down by ``create_app``)."""


def _team_credential(lookup: CredentialLookup, engine: Any, bearer: str | None, cookie: str | None) -> Any:
    with Session(engine) as session:
        return lookup(session, bearer, cookie)


async def _redirect(send: Send, location: str, extra: list[tuple[bytes, bytes]]) -> None:
    headers = [(b"location", location.encode("latin-1")), (b"cache-control", b"no-store"), *extra]
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


def session_value(token: str) -> str:
    """The cookie value: derived from the token so the token itself never sits in a cookie."""
    return hmac.new(token.encode(), b"mnnwb-session-v1", hashlib.sha256).hexdigest()


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _cookies(header: str) -> dict[str, str]:
    pairs = (part.strip().partition("=") for part in header.split(";") if "=" in part)
    return {name: value for name, _, value in pairs}


def _bearer(headers: dict[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    return auth[7:].strip() if auth.lower().startswith("bearer ") else None


def host_name(host_header: str) -> str:
    """The host part of a Host header, without port; IPv6 brackets removed."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def forwarded_client(scope: Scope, headers: dict[str, str], trusted: set[str]) -> None:
    """Behind a trusted reverse proxy, take the client address and scheme it reports.

    X-Forwarded-For is read right to left, skipping trusted hops, so a client cannot spoof its
    address by sending the header itself. Anyone else's forwarded headers are ignored.
    """
    client = scope.get("client")
    if not trusted or not client or client[0] not in trusted:
        return
    hops = [h.strip() for h in headers.get("x-forwarded-for", "").split(",") if h.strip()]
    for hop in reversed(hops):
        if hop not in trusted:
            scope["client"] = (hop, 0)
            break
    proto = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    if proto in ("http", "https"):
        secure = proto == "https"
        if scope["type"] == "websocket":
            scope["scheme"] = "wss" if secure else "ws"
        else:
            scope["scheme"] = proto


def is_secure(scope: Scope) -> bool:
    return scope.get("scheme") in ("https", "wss")


class SecurityMiddleware:
    """Host allowlist, auth, CSRF and websocket Origin checks for every request."""

    def __init__(self, app: Callable[..., Awaitable[None]], settings: Settings, token: str,
                 credential: CredentialLookup, engine: EngineLookup) -> None:
        self.app = app
        self.credential = credential
        self.engine = engine
        self.token = token
        self.cookie = session_value(token)
        self.allowed_hosts = {*LOOPBACK_HOSTS, *(h.lower() for h in settings.allowed_hosts)}
        if settings.host not in ("0.0.0.0", "::"):  # noqa: S104 - a wildcard is never a Host
            self.allowed_hosts.add(settings.host.lower())
        self.allowed_origins = set(settings.allowed_origins)
        self.secure_cookies = settings.secure_cookies
        self.team = settings.team
        self.trusted_proxies = set(settings.trusted_proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        forwarded_client(scope, headers, self.trusted_proxies)
        if host_name(headers.get("host", "")) not in self.allowed_hosts:
            await self._deny(scope, send, 400, ErrorCode.BAD_HOST, "host not allowed")
            return
        path = scope["path"]
        public = path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)
        if scope["type"] == "http" and not self.team and await self._token_exchange(scope, send, path):
            return
        principal = None if public else await self._principal(scope, headers)
        if principal is None and not public and not (self.team and path in LOGIN_PATHS):
            await self._deny(scope, send, 401, ErrorCode.UNAUTHORIZED, "authentication required")
            return
        problem = self._csrf_problem(scope, headers, principal) if not public else None
        if problem:
            await self._deny(scope, send, 403, ErrorCode.FORBIDDEN, problem)
            return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def _principal(self, scope: Scope, headers: dict[str, str]) -> str | None:
        """Who is calling: ``"local"``, ``"user:<id>"`` (team mode) or nobody."""
        if not self.team:
            return "local" if self._authenticated(headers) else None
        bearer = _bearer(headers)
        cookie = _cookies(headers.get("cookie", "")).get(COOKIE_NAME)
        if not bearer and not cookie:
            return None
        engine = self.engine(scope)
        credential = await to_thread.run_sync(_team_credential, self.credential, engine, bearer, cookie)
        if credential is None:
            return None
        scope.setdefault("state", {})["credential"] = credential
        return "user:" + credential.user_id

    def _authenticated(self, headers: dict[str, str]) -> bool:
        bearer = _bearer(headers)
        if bearer is not None:
            return hmac.compare_digest(bearer.encode(), self.token.encode())
        cookie = _cookies(headers.get("cookie", "")).get(COOKIE_NAME, "")
        return hmac.compare_digest(cookie.encode(), self.cookie.encode())

    def _origin_ok(self, origin: str, host: str) -> bool:
        return origin in self.allowed_origins or origin in (f"http://{host}", f"https://{host}")

    def _csrf_problem(self, scope: Scope, headers: dict[str, str], principal: str | None) -> str | None:
        origin = headers.get("origin")
        host = headers.get("host", "")
        if scope["type"] == "websocket":
            if origin is not None and not self._origin_ok(origin, host):
                return "cross-origin websocket refused"
            return None
        if scope["method"] not in UNSAFE_METHODS:
            return None
        if origin is not None and origin != "null" and not self._origin_ok(origin, host):
            return "cross-origin request refused"
        # A browser cannot attach a bearer token to a forged request (only cookies ride along),
        # so scripts and CI clients authenticated by one need neither a JSON body nor the header.
        if principal is not None and _bearer(headers) is not None:
            return None
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json" and CSRF_HEADER not in headers:
            return f"state-changing requests need a JSON body or the {CSRF_HEADER} header"
        return None

    async def _token_exchange(self, scope: Scope, send: Send, path: str) -> bool:
        """Turn ``/page?token=…`` into a session cookie and a redirect to the clean URL."""
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [v for k, v in query if k == "token"]
        if not given or scope["method"] != "GET" or path.startswith("/api/"):
            return False
        if not hmac.compare_digest(given[0].encode(), self.token.encode()):
            await self._deny(scope, send, 401, ErrorCode.UNAUTHORIZED, "invalid token")
            return True
        rest = urlencode([(k, v) for k, v in query if k != "token"])
        location = path + (f"?{rest}" if rest else "")
        cookie = session_cookie(self.cookie, self.secure_cookies or is_secure(scope))
        await _redirect(send, location, [(b"set-cookie", cookie.encode("latin-1")),
                                         (b"referrer-policy", b"no-referrer")])
        return True

    async def _deny(self, scope: Scope, send: Send, status: int, code: str, detail: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": detail})
            return
        wants_html = scope["path"] in ("/",) or scope["path"].startswith("/p/")
        if wants_html and status == 401 and self.team:
            await _redirect(send, "/login?next=" + quote(scope["path"], safe="/"), [])
            return
        if wants_html and status == 401:
            body = LOGIN_HINT.encode()
            content_type = b"text/html; charset=utf-8"
        else:
            body = json.dumps({"detail": detail, "code": code}).encode()
            content_type = b"application/json"
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", content_type), (b"cache-control", b"no-store")],
            }
        )
        await send({"type": "http.response.body", "body": body})


LOGIN_HINT = """<!doctype html><html><head><meta charset="utf-8"><title>MNN Workbench</title>
<style>body{font:15px system-ui;background:#1e1e1e;color:#ddd;display:grid;place-items:center;
height:100vh;margin:0}code{background:#333;padding:2px 6px;border-radius:4px}</style></head>
<body><div><h2>MNN Workbench: sign-in needed</h2><p>Open the URL printed by
<code>mnnwb serve</code> (it carries a one-time token), or print it again with
<code>mnnwb url</code>.</p></div></body></html>"""

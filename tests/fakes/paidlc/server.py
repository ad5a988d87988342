"""One local HTTP server answering PAI-DLC, AIWorkspace and OSS requests, run in-process."""

import secrets
import shutil
import tempfile
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

from .api import OpenApi
from .errors import ApiError, Request, Response, acs_error, oss_error
from .executor import Executor
from .oss import ObjectStore, OssApi
from .signing import AcsVerifier, OssVerifier


@dataclass(frozen=True)
class SeenRequest:
    """What tests may check about traffic: which operation, and with which byte range."""

    method: str
    path: str
    query: str
    range: str


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        parts = urlsplit(self.path)
        req = Request(
            self.command,
            parts.path,
            parts.query,
            {k.lower(): v for k, v in self.headers.items()},
            self.rfile.read(length),
        )
        seen = SeenRequest(req.method, parts.path, parts.query, req.headers.get("range", ""))
        self.server.emulator.record(seen)
        resp = self.server.emulator.dispatch(req)
        self.send_response(resp.status)
        for name, value in resp.headers.items():
            self.send_header(name, value)
        if "Content-Length" not in resp.headers:
            self.send_header("Content-Length", str(len(resp.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(resp.body)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _serve

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet: the emulator keeps its own request record."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    emulator: "Emulator"


class Emulator:
    """Start with ``with Emulator() as emu:``; point SDK clients at ``emu.endpoint``.

    ``credentials`` maps access key ids to secrets; by default one random pair is made and
    exposed as ``access_key_id`` / ``access_key_secret``. ``buckets`` are created empty.
    ``step_delay`` is the pause between job status changes (Queuing, EnvPreparing, ...).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        buckets: tuple[str, ...] = ("mnnwb-artifacts",),
        credentials: dict[str, str] | None = None,
        step_delay: float = 0.05,
        root: Path | None = None,
    ) -> None:
        self.credentials = credentials or {"LTAI" + secrets.token_hex(8): secrets.token_urlsafe(24)}
        self.access_key_id, self.access_key_secret = next(iter(self.credentials.items()))
        self._own_root = root is None
        self.root = root or Path(tempfile.mkdtemp(prefix="paidlc-emulator-"))
        self.store = ObjectStore(self.root / "oss")
        for bucket in buckets:
            self.store.create_bucket(bucket)
        self.oss = OssApi(self.store)
        self.openapi = OpenApi(self.store, Executor(self.root / "jobs", self.store, step_delay))
        self._acs = AcsVerifier(self.credentials)
        self._oss_auth = OssVerifier(self.credentials)
        self.requests: list[SeenRequest] = []
        self._server = _Server((host, port), _Handler)
        self._server.emulator = self
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        """``host:port``, the form the OpenAPI SDK wants (no scheme)."""
        host, port = self._server.server_address[:2]
        return f"{host!s}:{port}"

    @property
    def oss_endpoint(self) -> str:
        return f"http://{self.endpoint}"

    def inject_fault(self, action: str, status: int, code: str, message: str) -> None:
        """Make the next OpenAPI call of ``action`` fail with this error, once."""
        self.openapi.inject_fault(action, ApiError(status, code, message))

    def record(self, seen: SeenRequest) -> None:
        self.requests.append(seen)

    def dispatch(self, req: Request) -> Response:
        is_acs = "x-acs-version" in req.headers
        try:
            if is_acs:
                self._acs.verify(req)
                return self.openapi.handle(req)
            self._oss_auth.verify(req)
            return self.oss.handle(req)
        except ApiError as err:
            return acs_error(req, err) if is_acs else oss_error(req, err)
        except Exception as exc:  # noqa: BLE001 - answer like the service would, never hang up
            internal = ApiError(500, "InternalError", f"{type(exc).__name__}: {exc}")
            return acs_error(req, internal) if is_acs else oss_error(req, internal)

    def start(self) -> "Emulator":
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            daemon=True,
            name="paidlc-emulator",
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self.openapi.shutdown()
        self._server.shutdown()
        self._server.server_close()
        if self._thread:
            self._thread.join()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "Emulator":
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

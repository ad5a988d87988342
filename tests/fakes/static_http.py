"""A static file server on loopback with ``Range`` support, for remote catalogs over HTTP.

``static_http(root)`` serves the folder ``root``; ``requests`` records each request's path and
``Range`` header, and ``drop_once`` holds paths whose first whole download is cut halfway (the
connection closes after half the body), as a dropped network would.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


@dataclass
class StaticState:
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    drop_once: set[str] = field(default_factory=set)


class RangeHandler(SimpleHTTPRequestHandler):
    state: StaticState

    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        url_path = unquote(urlsplit(self.path).path)
        self.state.requests.append((url_path, self.headers.get("Range")))
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            self.send_error(404)
            return
        size = path.stat().st_size
        start, status = 0, 200
        wanted = self.headers.get("Range", "")
        if wanted.startswith("bytes=") and wanted.endswith("-"):
            start, status = int(wanted[6:-1]), 206
        length = size - start
        self.send_response(status)
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.end_headers()
        if status == 200 and url_path in self.state.drop_once:
            self.state.drop_once.discard(url_path)
            length //= 2  # then the connection closes, the body cut short
            self.close_connection = True
        with path.open("rb") as source:
            source.seek(start)
            while length > 0:
                block = source.read(min(length, 1 << 20))
                self.wfile.write(block)
                length -= len(block)


@contextmanager
def static_http(root: Path) -> Iterator[tuple[str, StaticState]]:
    """Serve ``root`` at the yielded ``http://127.0.0.1:PORT/``."""
    state = StaticState()
    handler = type("Handler", (RangeHandler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

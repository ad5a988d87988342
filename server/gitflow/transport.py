"""Connecting to remotes: allowed URL schemes, per-call credentials, timeouts, redaction.

Only ``http(s)://``, ``git://`` and ``file://`` are spoken: ``ssh`` and ``ext::`` would run a
program named by configuration. Clients are built from a configuration holding nothing but the
timeout, so a repository's own config (``url.*.insteadOf``, ``http.extraHeader``, proxies) never
steers a connection. Credentials come with each call and are never stored.
"""

import re
import socket
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import PurePosixPath
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

from dulwich.client import (
    GitClient,
    LocalGitClient,
    TCPGitClient,
    Urllib3HttpGitClient,
    _fileno_can_read,
    get_transport_and_path,
)
from dulwich.config import ConfigDict
from dulwich.protocol import (
    DEFAULT_GIT_PROTOCOL_VERSION_FETCH,
    DEFAULT_GIT_PROTOCOL_VERSION_SEND,
    Protocol,
)

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.gitflow.urlpolicy import UNRESTRICTED, UrlPolicy

Progress = Callable[[str], None]
DEFAULT_TIMEOUT = 30.0
ALLOWED_SCHEMES = ("http", "https", "git", "file")
_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]*@")


def redact(text: str, *secrets: str | None) -> str:
    """``scheme://user:pass@host`` → ``scheme://***@host``; known secrets → ``***``."""
    text = _USERINFO.sub(lambda m: m.group("scheme") + "***@", text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """The URL without its ``user:pass@`` part, and the user name and password it held."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None, None
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return clean, parts.username, parts.password


def check_url(url: str) -> str:
    """The URL a remote is reached by: a folder of this machine (an absolute path) as its
    ``file://`` URL; anything but http(s)://, git:// and file:// refused."""
    if url.startswith("/"):
        return PurePosixPath(url).as_uri()
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise Invalid("remote URLs must use http(s)://, git:// or file://", code=ErrorCode.UNSUPPORTED_URL)
    return url


class TimedTCPGitClient(TCPGitClient):
    """The ``git://`` client with connect and read timeouts (dulwich's has none).

    Mirrors ``TCPGitClient._connect`` except for how the socket is made.
    """

    timeout: float = DEFAULT_TIMEOUT
    policy: UrlPolicy = UNRESTRICTED

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._protocols: list[Protocol] = []

    def close(self) -> None:
        """Close every connection, including those dulwich leaves open after an error."""
        for proto in self._protocols:
            proto.close()
        self._protocols.clear()
        super().close()

    def _connect(
        self, cmd: bytes, path: str | bytes, protocol_version: int | None = None
    ) -> tuple[Protocol, Callable[[], bool], IO[bytes] | None]:
        if not isinstance(path, bytes):
            path = path.encode(self._remote_path_encoding)
        sock = socket.create_connection((self._host, self._port), timeout=self.timeout)
        self.policy.check_socket(self._host, sock)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        rfile, wfile = sock.makefile("rb", -1), sock.makefile("wb", 0)

        def close() -> None:
            rfile.close()
            wfile.close()
            sock.close()

        def shutdown_write() -> None:
            wfile.flush()
            with suppress(OSError):
                sock.shutdown(socket.SHUT_WR)

        proto = Protocol(
            rfile.read,
            wfile.write,
            close,
            report_activity=self._report_activity,
            shutdown_write=shutdown_write,
        )
        self._protocols.append(proto)
        fetching = cmd == b"upload-pack"
        if not fetching:
            self.protocol_version = DEFAULT_GIT_PROTOCOL_VERSION_SEND
        elif protocol_version is None:
            self.protocol_version = DEFAULT_GIT_PROTOCOL_VERSION_FETCH
        else:
            self.protocol_version = protocol_version
        version = b""
        if fetching and self.protocol_version == 2:
            version = b"\0\0version=%d\0" % self.protocol_version
        host = b"host=" + self._host.encode("ascii") + version
        proto.send_cmd(b"git-" + cmd, path[1:] if path.startswith(b"/~") else path, host)
        return proto, lambda: _fileno_can_read(sock.fileno()), None


def open_client(
    url: str, username: str | None, password: str | None, timeout: float, policy: UrlPolicy
) -> tuple[GitClient, str]:
    """A client for ``url`` whose every connection, redirects included, passes ``policy``."""
    url = check_url(url)
    policy.check(url)
    config = ConfigDict()
    config.set((b"http",), b"timeout", str(timeout).encode())
    client, path = get_transport_and_path(url, config=config, username=username, password=password)
    if isinstance(client, TCPGitClient):
        timed = TimedTCPGitClient(client._host, port=client._port)
        timed.timeout, timed.policy = timeout, policy
        return timed, path
    if isinstance(client, Urllib3HttpGitClient):
        policy.guard(client.pool_manager)
        return client, path
    if not isinstance(client, LocalGitClient):
        raise Invalid("unsupported remote transport", code=ErrorCode.UNSUPPORTED_URL)
    return client, path


def progress_sink(progress: Progress | None, *secrets: str | None) -> Callable[[bytes], None]:
    """Adapt a text progress callback to dulwich's bytes callback, redacting as it goes."""

    def sink(data: bytes) -> None:
        if progress is not None:
            text = data.decode("utf-8", "replace").strip()
            if text:
                progress(redact(text, *secrets))

    return sink


def throttled(progress: Progress, interval: float = 0.2) -> Progress:
    """Pass on at most one message per ``interval`` seconds (remotes report every percent)."""
    last = [float("-inf")]

    def send(text: str) -> None:
        now = time.monotonic()
        if now - last[0] >= interval:
            last[0] = now
            progress(text)

    return send

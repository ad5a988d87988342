"""Which Git URLs a caller may reach: one policy for clone, remotes, fetch, pull, push and every
redirect an HTTP remote answers with.

Admins (and the single user of local mode) keep every transport. Members may only use
``http(s)://`` and ``git://`` hosts whose addresses are public: no ``file://``, no plain paths, no
loopback, link-local, private or otherwise non-global address, unless the host name or the address
is listed in ``MNNWB_GIT_ALLOWED_HOSTS`` (names, addresses or networks such as ``10.1.0.0/16``).

The URL is checked when it is given, and the address each socket actually connected to is checked
again before a byte is sent. So a remote written into ``.git/config`` by hand, a DNS answer that
changed since the remote was added, or a redirect to another host cannot get through.
"""

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from urllib3 import HTTPConnectionPool, HTTPSConnectionPool, PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import Forbidden

NETWORK_SCHEMES = ("http", "https", "git")
DEFAULT_PORTS = {"http": 80, "https": 443, "git": 9418}
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _entries(allowed: Iterable[str]) -> tuple[frozenset[str], tuple[Network, ...]]:
    names, networks = set(), []
    for entry in (e.strip().lower() for e in allowed):
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
        except ValueError:
            if entry:
                names.add(entry)
    return frozenset(names), tuple(networks)


@dataclass(frozen=True)
class UrlPolicy:
    """``restricted`` is false for admins; ``allowed`` is ``MNNWB_GIT_ALLOWED_HOSTS``."""

    restricted: bool = False
    allowed: tuple[str, ...] = ()

    def check(self, url: str) -> None:
        """Refuse a URL this caller may not use; names are resolved and their addresses checked."""
        if not self.restricted:
            return
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in NETWORK_SCHEMES or not parts.hostname:
            raise Forbidden("only an admin may use file:// or a folder on the server as a Git remote",
                            code=ErrorCode.GIT_URL_FORBIDDEN)
        try:
            port = parts.port or DEFAULT_PORTS[scheme]
        except ValueError:
            raise Forbidden("the Git URL has an invalid port", code=ErrorCode.GIT_URL_FORBIDDEN) from None
        for address in _resolve(parts.hostname, port):
            self.check_address(parts.hostname, address)

    def check_address(self, host: str, address: str) -> None:
        """Refuse a connection to ``address`` (reached through the name ``host``)."""
        if not self.restricted:
            return
        names, networks = _entries(self.allowed)
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if host.strip("[]").lower() in names or any(ip in net for net in networks):
            return
        if ip.is_global and not ip.is_multicast:
            return
        raise Forbidden(
            f"{host} resolves to {ip}, a loopback, link-local or private address; an admin must "
            "allow it in MNNWB_GIT_ALLOWED_HOSTS", code=ErrorCode.GIT_HOST_FORBIDDEN,
        )

    def check_socket(self, host: str, sock: socket.socket) -> None:
        """Check the peer of a connected socket; close it when refused."""
        try:
            self.check_address(host, sock.getpeername()[0])
        except BaseException:
            sock.close()
            raise

    def guard(self, manager: Any) -> None:
        """Make every connection ``manager`` opens (redirects included) pass ``check_socket``."""
        if self.restricted:
            pools: PoolManager = getattr(manager, "_pool_manager", manager)  # dulwich may wrap it
            pools.pool_classes_by_scheme = _guarded_pools(self)


def _resolve(host: str, port: int) -> set[str]:
    """The addresses of ``host``; none when it does not resolve (the connection then fails)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return set()
    return {str(info[4][0]) for info in infos}


def _guarded_pools(policy: UrlPolicy) -> dict[str, type[Any]]:
    class GuardedHTTP(HTTPConnection):
        def _new_conn(self) -> socket.socket:
            sock = super()._new_conn()
            policy.check_socket(self.host, sock)
            return sock

    class GuardedHTTPS(HTTPSConnection):
        def _new_conn(self) -> socket.socket:
            sock = super()._new_conn()
            policy.check_socket(self.host, sock)
            return sock

    class HTTPPool(HTTPConnectionPool):
        ConnectionCls = GuardedHTTP

    class HTTPSPool(HTTPSConnectionPool):
        ConnectionCls = GuardedHTTPS

    return {"http": HTTPPool, "https": HTTPSPool}


UNRESTRICTED = UrlPolicy()


def policy_for(settings: Settings, role: str) -> UrlPolicy:
    """The policy of a caller with ``role``: admins (and local mode) any URL, members public hosts."""
    restricted = settings.team and role != "admin"
    return UrlPolicy(restricted=restricted, allowed=tuple(settings.git_allowed_hosts))

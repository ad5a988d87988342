"""Why a catalog could not be reached, in one word a person can act on: ``dns`` (the name does
not resolve), ``timeout``, ``refused`` (nothing listens there), ``tls`` (no secure connection
could be made), else ``unreachable``. Read from the cause chain the HTTP clients keep."""

import socket
import ssl

import httpx2
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, ReadTimeoutError
from urllib3.exceptions import SSLError as Urllib3SSLError

Reason = str
KINDS: tuple[tuple[tuple[type[BaseException], ...], Reason], ...] = (
    ((socket.gaierror, NameResolutionError), "dns"),
    ((ssl.SSLError, ssl.CertificateError, Urllib3SSLError), "tls"),
    ((ConnectionRefusedError,), "refused"),
    ((TimeoutError, httpx2.TimeoutException, ConnectTimeoutError, ReadTimeoutError), "timeout"),
)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        # urllib3's MaxRetryError keeps the last failure as ``reason``, not as a cause.
        reason = getattr(current, "reason", None)
        current = current.__cause__ or current.__context__ or (
            reason if isinstance(reason, BaseException) else None)
    return seen


def reason_of(exc: BaseException) -> Reason:
    for link in _chain(exc):
        for types, reason in KINDS:
            if isinstance(link, types):
                return reason
    return "unreachable"

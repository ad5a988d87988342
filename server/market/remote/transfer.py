"""HTTP transfers for remote catalogs: small documents with a size cap, and file downloads that
resume from a partial file (``<name>.part`` beside the target) with an HTTP ``Range`` request.

Catalog URLs are set by an admin, so any host is allowed; only ``http(s)`` is spoken, redirects
are followed a bounded number of times, and no proxy or credential comes from the environment.
"""

import os
import re
from pathlib import Path

import urllib3
from urllib3.exceptions import HTTPError
from urllib3.util import Retry, Timeout

from server.core.error_codes import ErrorCode
from server.core.errors import BadGateway, Unavailable
from server.core.fsutil import publish
from server.market.remote.reasons import reason_of

MAX_DOCUMENT = 8 * 1024 * 1024
CHUNK = 1 << 20
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-\d+/(\d+|\*)$")


def new_pool() -> urllib3.PoolManager:
    return urllib3.PoolManager(retries=Retry(total=None, connect=2, read=0, redirect=5, status=0, other=0),
                               headers={"Accept-Encoding": "identity",
                                        "User-Agent": "mnn-workbench-market"})


def _request(pool: urllib3.PoolManager, url: str, timeout: float,
             headers: dict[str, str] | None = None) -> urllib3.BaseHTTPResponse:
    if not url.lower().startswith(("http://", "https://")):
        raise BadGateway(f"{url} is not an http(s) URL", code=ErrorCode.CATALOG_ERROR)
    try:
        return pool.request("GET", url, headers=headers, preload_content=False,
                            timeout=Timeout(connect=timeout, read=timeout))
    except HTTPError as exc:
        reason = reason_of(exc)
        raise Unavailable(f"cannot reach {url} ({reason}): {type(exc).__name__}",
                          code=ErrorCode.CATALOG_UNREACHABLE, reason=reason) from None


def _refuse_status(response: urllib3.BaseHTTPResponse, url: str) -> None:
    response.drain_conn()
    response.release_conn()
    raise BadGateway(f"{url} answered HTTP {response.status}", code=ErrorCode.CATALOG_ERROR,
                     status=response.status)


def get_document(pool: urllib3.PoolManager, url: str, timeout: float) -> bytes:
    """The body of a small document (an index, a manifest), at most ``MAX_DOCUMENT`` bytes."""
    response = _request(pool, url, timeout)
    if response.status != 200:
        _refuse_status(response, url)
    try:
        body = response.read(MAX_DOCUMENT + 1, decode_content=False)
    except HTTPError as exc:
        raise Unavailable(f"reading {url} failed: {type(exc).__name__}",
                          code=ErrorCode.CATALOG_UNREACHABLE) from None
    finally:
        response.release_conn()
    if len(body) > MAX_DOCUMENT:
        raise BadGateway(f"{url} is larger than {MAX_DOCUMENT} bytes", code=ErrorCode.CATALOG_ERROR)
    return body


def decode_text(body: bytes, what: str) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadGateway(f"{what} is not UTF-8 text", code=ErrorCode.BAD_MANIFEST) from None


def part_path(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def _resume_offset(response: urllib3.BaseHTTPResponse, have: int) -> int:
    """Where the body starts: ``have`` for a matching 206, 0 for a whole 200."""
    if response.status == 200:
        return 0
    match = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
    if response.status != 206 or not match or int(match.group(1)) != have:
        raise BadGateway("the server answered the Range request with a different range",
                         code=ErrorCode.CATALOG_ERROR)
    return have


def download_file(pool: urllib3.PoolManager, url: str, target: Path, size: int, timeout: float) -> None:
    """Download ``url`` into ``target`` (at most ``size`` bytes), continuing ``target.part``.

    An interrupted transfer leaves the partial file for the next call; the caller verifies the
    content. At most one byte past ``size`` is written, so a longer answer fails its size check.
    """
    part = part_path(target)
    have = part.stat().st_size if part.exists() else 0
    if have > size:
        part.unlink()
        have = 0
    if have < size or size == 0:
        _fetch_rest(pool, url, part, have, size, timeout)
    publish(part, target)


def _fetch_rest(pool: urllib3.PoolManager, url: str, part: Path, have: int, size: int,
                timeout: float) -> None:
    response = _request(pool, url, timeout, {"Range": f"bytes={have}-"} if have else None)
    if response.status not in (200, 206):
        _refuse_status(response, url)
    try:
        start = _resume_offset(response, have)
        with part.open("r+b" if part.exists() else "wb") as out:
            out.seek(start)
            out.truncate()
            written = start
            for chunk in response.stream(CHUNK, decode_content=False):
                chunk = chunk[: size + 1 - written]
                out.write(chunk)
                written += len(chunk)
                if written > size:
                    break
            out.flush()
            os.fsync(out.fileno())
    except HTTPError as exc:
        raise Unavailable(f"the download of {url} was interrupted ({type(exc).__name__}); the "
                          "partial file is kept and the next try resumes it",
                          code=ErrorCode.DOWNLOAD_INTERRUPTED) from None
    finally:
        response.release_conn()

"""Job artifacts in OSS: list a prefix, download it checksummed and resumable.

A file is first written to ``<name>.part``. An interrupted download keeps that file and the
next attempt continues it with a ranged GET (``Range: bytes=<size>-``). A finished file is
compared with the object's CRC-64 (``x-oss-hash-crc64ecma``; the MD5 ETag when no CRC is
given) before it is renamed into place; a resumed file that does not match is fetched once more
from scratch. Files already present with the right checksum are skipped.
"""

import base64
import hashlib
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.core.fsutil import publish

from .errors import cloud_error, sdk_errors
from .settings import PaiDlcSettings

if TYPE_CHECKING:  # the SDK is imported when a store is made (see errors.py)
    import alibabacloud_oss_v2 as oss
    from alibabacloud_oss_v2.crc import Crc64


class Artifact(BaseModel):
    key: str
    path: str  # relative to the listed prefix, "/"-separated
    size: int
    etag: str
    last_modified: datetime | None = None


class DownloadProgress(BaseModel):
    path: str
    file_done: int
    file_total: int
    done: int
    total: int


class DownloadedFile(BaseModel):
    path: str
    size: int
    crc64: str
    resumed_from: int = 0
    skipped: bool = False


T = TypeVar("T")
ProgressCallback = Callable[[DownloadProgress], None]


class ArtifactStore:
    def __init__(
        self,
        settings: PaiDlcSettings,
        provider: "oss.credentials.CredentialsProvider",
        secrets: Iterable[str] = (),
        chunk_size: int = 1 << 20,
    ) -> None:
        import alibabacloud_oss_v2 as oss

        cfg = oss.config.load_default()
        cfg.credentials_provider = provider
        cfg.region = settings.region
        cfg.endpoint = settings.oss_url
        cfg.use_path_style = settings.oss_path_style
        cfg.connect_timeout = settings.timeout_seconds
        cfg.readwrite_timeout = settings.timeout_seconds
        self._client = oss.Client(cfg)
        self.bucket = settings.oss_bucket
        self._secrets = list(secrets)
        self.chunk_size = chunk_size

    def _call(self, action: str, fn: Callable[..., T], *args: object) -> T:
        try:
            return fn(*args)
        except sdk_errors() as exc:
            raise cloud_error(exc, f"OSS {action}", self._secrets) from exc

    def list_artifacts(self, prefix: str, page_size: int = 1000) -> list[Artifact]:
        """Every object under ``prefix`` (all pages), as paths relative to it."""
        import alibabacloud_oss_v2 as oss

        found: list[Artifact] = []
        token: str | None = None
        while True:
            req = oss.ListObjectsV2Request(
                bucket=self.bucket, prefix=prefix, max_keys=page_size, continuation_token=token
            )
            page = self._call("ListObjectsV2", self._client.list_objects_v2, req)
            for item in page.contents or []:
                rel = str(item.key)[len(prefix) :]
                if rel and not rel.endswith("/"):
                    found.append(
                        Artifact(
                            key=str(item.key),
                            path=rel,
                            size=int(item.size or 0),
                            etag=str(item.etag or ""),
                            last_modified=item.last_modified,
                        )
                    )
            token = page.next_continuation_token
            if not page.is_truncated or not token:
                return found

    def download_artifacts(
        self, prefix: str, dest: Path, progress: ProgressCallback | None = None
    ) -> list[DownloadedFile]:
        """Download everything under ``prefix`` into ``dest`` (created if needed)."""
        artifacts = self.list_artifacts(prefix)
        total = sum(a.size for a in artifacts)
        done = 0
        results = []
        for artifact in artifacts:
            target = _confined(dest, artifact.path)

            def report(file_done: int, a: Artifact = artifact, base: int = done) -> None:
                if progress:
                    progress(
                        DownloadProgress(
                            path=a.path,
                            file_done=file_done,
                            file_total=a.size,
                            done=base + file_done,
                            total=total,
                        )
                    )

            results.append(self.download_file(artifact.key, target, report, artifact.path))
            done += artifact.size
        return results

    def download_file(
        self,
        key: str,
        target: Path,
        report: Callable[[int], None] = lambda _: None,
        label: str | None = None,
    ) -> DownloadedFile:
        """Download one object to ``target``, resuming ``target.part`` if it exists."""
        import alibabacloud_oss_v2 as oss

        head = self._call(
            "HeadObject",
            self._client.head_object,
            oss.HeadObjectRequest(bucket=self.bucket, key=key),
        )
        size, rel = int(head.content_length or 0), label or target.name
        if target.is_file() and target.stat().st_size == size and _matches(target, head):
            report(size)
            return DownloadedFile(path=rel, size=size, crc64=_crc64(target), skipped=True)
        part = target.with_name(target.name + ".part")
        target.parent.mkdir(parents=True, exist_ok=True)
        offset = part.stat().st_size if part.is_file() else 0
        if offset > size:
            part.unlink()
            offset = 0
        self._fetch(key, part, offset, size, str(head.etag or ""), report)
        if not _matches(part, head):
            part.unlink()
            if offset == 0:
                raise Conflict(f"OSS object {key} failed its checksum after download",
                               code=ErrorCode.CLOUD_CHECKSUM)
            return self.download_file(key, target, report, label)
        publish(part, target)
        return DownloadedFile(path=rel, size=size, crc64=_crc64(target), resumed_from=offset)

    def _fetch(
        self, key: str, part: Path, offset: int, size: int, etag: str, report: Callable[[int], None]
    ) -> None:
        import alibabacloud_oss_v2 as oss

        if offset >= size:
            return
        req = oss.GetObjectRequest(bucket=self.bucket, key=key, if_match=etag or None)
        if offset:
            req.range_header, req.range_behavior = f"bytes={offset}-", "standard"
        result = self._call("GetObject", self._client.get_object, req)
        done = offset
        try:
            with part.open("ab") as out:
                for chunk in result.body.iter_bytes(block_size=self.chunk_size):
                    out.write(chunk)
                    out.flush()
                    done += len(chunk)
                    report(done)
        except sdk_errors() as exc:
            raise cloud_error(exc, "OSS GetObject", self._secrets) from exc
        finally:
            result.body.close()


def _confined(dest: Path, rel: str) -> Path:
    parts = PurePosixPath(rel).parts
    if not parts or rel.startswith("/") or ".." in parts:
        raise Invalid(f"refusing artifact path outside the destination: {rel!r}")
    return dest.joinpath(*parts)


def new_crc64() -> "Crc64":
    """OSS's CRC-64 (``x-oss-hash-crc64ecma``), at zero: ``update`` it, then ``sum64``."""
    from alibabacloud_oss_v2.crc import Crc64

    return Crc64(0)


def _crc64(path: Path) -> str:
    crc = new_crc64()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            crc.update(block)
    return str(crc.sum64())


def _matches(path: Path, head: "oss.HeadObjectResult") -> bool:
    if head.hash_crc64:
        return _crc64(path) == str(head.hash_crc64)
    etag = str(head.etag or "").strip('"')
    if len(etag) == 32 and "-" not in etag:
        md5 = hashlib.md5(usedforsecurity=False)
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                md5.update(block)
        return md5.hexdigest().upper() == etag.upper()
    if head.content_md5:
        return (
            base64.b64decode(head.content_md5)
            == hashlib.md5(path.read_bytes(), usedforsecurity=False).digest()
        )
    raise Conflict(
        "OSS gave no checksum (CRC-64, MD5 ETag or Content-MD5) to verify against",
        code=ErrorCode.CLOUD_CHECKSUM,
    )

"""Emulated OSS: buckets on disk, path-style PutObject/GetObject/HeadObject/ListObjectsV2."""

import base64
import hashlib
import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote
from xml.sax.saxutils import escape

from alibabacloud_oss_v2.crc import Crc64

from .errors import ApiError, Request, Response


@dataclass
class StoredObject:
    size: int
    etag: str  # quoted upper-case MD5, as OSS gives for simple uploads
    crc64: str
    modified: datetime
    content_type: str


class ObjectStore:
    """Objects live as files under ``root/<bucket>/<sha256 of key>`` (any key is legal in OSS,
    including ones that are not safe paths); metadata is kept in memory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._meta: dict[tuple[str, str], StoredObject] = {}
        self._lock = threading.Lock()

    def create_bucket(self, bucket: str) -> None:
        (self.root / bucket).mkdir(parents=True, exist_ok=True)

    def _bucket_dir(self, bucket: str) -> Path:
        path = self.root / bucket
        if not bucket or "/" in bucket or not path.is_dir():
            raise ApiError(
                404,
                "NoSuchBucket",
                "The specified bucket does not exist.",
                BucketName=bucket,
                EC="0015-00000101",
            )
        return path

    def put(self, bucket: str, key: str, data: bytes, content_type: str = "") -> StoredObject:
        if not key or len(key.encode()) > 1023:
            raise ApiError(400, "InvalidObjectName", "The specified object is not valid.")
        path = self._bucket_dir(bucket) / _file_name(key)
        crc = Crc64(0)
        crc.update(data)
        meta = StoredObject(
            len(data),
            f'"{hashlib.md5(data).hexdigest().upper()}"',  # noqa: S324
            str(crc.sum64()),
            datetime.now(UTC),
            content_type or "application/octet-stream",
        )
        with self._lock:
            path.write_bytes(data)
            self._meta[(bucket, key)] = meta
        return meta

    def get(self, bucket: str, key: str) -> tuple[StoredObject, Path]:
        self._bucket_dir(bucket)
        with self._lock:
            meta = self._meta.get((bucket, key))
        if meta is None:
            raise ApiError(404, "NoSuchKey", "The specified key does not exist.", Key=key, EC="0026-00000001")
        return meta, self.root / bucket / _file_name(key)

    def keys(self, bucket: str, prefix: str) -> list[str]:
        self._bucket_dir(bucket)
        with self._lock:
            return sorted(k for b, k in self._meta if b == bucket and k.startswith(prefix))


def _file_name(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class OssApi:
    """Dispatches an authenticated OSS request to its operation."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    def handle(self, req: Request) -> Response:
        bucket, _, key = unquote(req.path).lstrip("/").partition("/")
        query = dict(parse_qsl(req.query, keep_blank_values=True))
        if not key and req.method == "GET" and query.get("list-type") == "2":
            return self._list_v2(req, bucket, query)
        if key and req.method == "PUT":
            return self._put(req, bucket, key)
        if key and req.method in ("GET", "HEAD"):
            return self._get(req, bucket, key)
        raise ApiError(405, "MethodNotAllowed", "The specified method is not allowed against this resource.")

    def _put(self, req: Request, bucket: str, key: str) -> Response:
        meta = self.store.put(bucket, key, req.body, req.headers.get("content-type", ""))
        return Response(200, _base_headers(req, meta))

    def _get(self, req: Request, bucket: str, key: str) -> Response:
        meta, path = self.store.get(bucket, key)
        if req.headers.get("if-match", meta.etag) != meta.etag:
            raise ApiError(
                412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold."
            )
        headers = _base_headers(req, meta)
        headers.update(
            {
                "Content-Type": meta.content_type,
                "Accept-Ranges": "bytes",
                "Last-Modified": format_datetime(meta.modified, usegmt=True),
                "x-oss-object-type": "Normal",
                "x-oss-storage-class": "Standard",
            }
        )
        span = _parse_range(req.headers.get("range", ""), meta.size)
        standard = req.headers.get("x-oss-range-behavior") == "standard"
        if span is None and req.headers.get("range") and standard:
            raise ApiError(
                416, "InvalidRange", "The requested range cannot be satisfied.", EC="0003-00000210"
            )
        data = b"" if req.method == "HEAD" else path.read_bytes()
        status = 200
        if span is not None:
            start, end = span
            status = 206
            headers["Content-Range"] = f"bytes {start}-{end}/{meta.size}"
            data = data[start : end + 1]
        headers["Content-Length"] = str(end - start + 1 if span else meta.size)
        return Response(status, headers, data)

    def _list_v2(self, req: Request, bucket: str, query: dict[str, str]) -> Response:
        prefix = query.get("prefix", "")
        max_keys = int(query.get("max-keys") or 100)
        after = query.get("continuation-token") or query.get("start-after", "")
        keys = [k for k in self.store.keys(bucket, prefix) if k > after]
        page, truncated = keys[:max_keys], len(keys) > max_keys
        url = query.get("encoding-type") == "url"
        contents = "".join(_contents_xml(k, self.store.get(bucket, k)[0], url) for k in page)
        parts = [
            f"<Name>{escape(bucket)}</Name>",
            f"<Prefix>{_enc(prefix, url)}</Prefix>",
            f"<MaxKeys>{max_keys}</MaxKeys>",
            "<Delimiter></Delimiter>",
            f"<IsTruncated>{str(truncated).lower()}</IsTruncated>",
            f"<KeyCount>{len(page)}</KeyCount>",
        ]
        if url:
            parts.append("<EncodingType>url</EncodingType>")
        if query.get("continuation-token"):
            parts.append(f"<ContinuationToken>{escape(after)}</ContinuationToken>")
        if truncated:
            parts.append(f"<NextContinuationToken>{escape(page[-1])}</NextContinuationToken>")
        xml = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult>'
            + "".join(parts)
            + contents
            + "</ListBucketResult>"
        )
        headers = {"Content-Type": "application/xml", "x-oss-request-id": req.request_id}
        return Response(200, headers, xml.encode())


def _enc(value: str, url: bool) -> str:
    return quote(value, safe="") if url else escape(value)


def _contents_xml(key: str, meta: StoredObject, url: bool) -> str:
    modified = meta.modified.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return (
        f"<Contents><Key>{_enc(key, url)}</Key><LastModified>{modified}</LastModified>"
        f"<ETag>{escape(meta.etag)}</ETag><Type>Normal</Type><Size>{meta.size}</Size>"
        "<StorageClass>Standard</StorageClass></Contents>"
    )


def _base_headers(req: Request, meta: StoredObject) -> dict[str, str]:
    return {
        "x-oss-request-id": req.request_id,
        "ETag": meta.etag,
        "x-oss-hash-crc64ecma": meta.crc64,
        "Content-MD5": _md5_b64(meta.etag),
    }


def _md5_b64(etag: str) -> str:
    return base64.b64encode(bytes.fromhex(etag.strip('"'))).decode()


_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def _parse_range(value: str, size: int) -> tuple[int, int] | None:
    """A single byte range clipped to the object, or None when absent or unsatisfiable."""
    match = _RANGE.match(value.strip())
    if not match or (not match[1] and not match[2]):
        return None
    if not match[1]:
        start, end = max(size - int(match[2]), 0), size - 1
    else:
        start = int(match[1])
        end = min(int(match[2]), size - 1) if match[2] else size - 1
    if start >= size or start > end:
        return None
    return start, end

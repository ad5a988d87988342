"""Where a Ray job leaves its artifacts, and bringing them back with checksums.

The job's script (``job_main.py``) uploads ``$MNNWB_OUTPUT_DIR`` and a ``manifest.json`` to a
folder both sides see or to an S3 prefix, and prints the manifest's sha256 in the job's log. The
pull trusts the storage for nothing: the manifest must match the sha256 from the log, and each
file its sha256 in the manifest, or the file is refused and nothing of it lands in the project.
"""

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, Unavailable
from server.core.fsutil import publish
from server.training.cloud import DownloadProgress
from server.training.cloud.artifacts import ProgressCallback, new_crc64
from server.training.ray.settings import RayCluster

MANIFEST = "manifest.json"
CHUNK = 1 << 20


class StorageLocation(BaseModel):
    """One job's artifact folder: a path, or an S3 bucket and key prefix (ends with ``/``)."""

    kind: Literal["shared_path", "s3"]
    path: str = ""
    endpoint: str = ""
    region: str = ""
    bucket: str = ""
    prefix: str = ""


class ManifestEntry(BaseModel):
    path: str
    size: int
    sha256: str


class Manifest(BaseModel):
    files: list[ManifestEntry]


class FetchedFile(BaseModel):
    path: str
    size: int
    crc64: str
    sha256: str


def location_for(cluster: RayCluster, job_id: str) -> StorageLocation:
    options = cluster.options
    if options.storage == "s3":
        if not options.s3_bucket:
            raise Invalid("the Ray settings name no S3 bucket", code=ErrorCode.RAY_NOT_CONFIGURED)
        return StorageLocation(kind="s3", endpoint=options.s3_endpoint, region=options.s3_region,
                               bucket=options.s3_bucket, prefix=f"{options.s3_prefix}jobs/{job_id}/")
    if not options.shared_path:
        raise Invalid("the Ray settings name no shared storage path", code=ErrorCode.RAY_NOT_CONFIGURED)
    return StorageLocation(kind="shared_path", path=str(Path(options.shared_path) / "jobs" / job_id))


def storage_env(cluster: RayCluster, location: StorageLocation) -> dict[str, str]:
    """The job's variables that tell its script where to upload (S3 keys included)."""
    env = {"MNNWB_RAY_STORAGE": location.model_dump_json()}
    if location.kind == "s3" and cluster.options.s3_access_key_id:
        secret = cluster.s3_secret_key.get_secret_value() if cluster.s3_secret_key else ""
        env.update(AWS_ACCESS_KEY_ID=cluster.options.s3_access_key_id,
                   AWS_SECRET_ACCESS_KEY=secret)
    return env


class Reader:
    """Reads objects of one job's artifact folder, wherever it is."""

    def __init__(self, cluster: RayCluster, location: StorageLocation) -> None:
        self._location = location
        self._s3: Any = None
        if location.kind == "s3":
            import boto3  # the ray extra's S3 client, only needed for S3 storage

            options = cluster.options
            secret = cluster.s3_secret_key.get_secret_value() if cluster.s3_secret_key else None
            self._s3 = boto3.client(
                "s3", endpoint_url=location.endpoint or None, region_name=location.region or None,
                aws_access_key_id=options.s3_access_key_id or None, aws_secret_access_key=secret)

    def chunks(self, rel: str) -> Iterator[bytes]:
        try:
            if self._s3 is None:
                with (Path(self._location.path) / rel).open("rb") as handle:
                    yield from iter(lambda: handle.read(CHUNK), b"")
                return
            body = self._s3.get_object(Bucket=self._location.bucket,
                                       Key=self._location.prefix + rel)["Body"]
            yield from body.iter_chunks(CHUNK)
        except FileNotFoundError as exc:
            raise Conflict(f"{rel} is missing from the job's storage",
                           code=ErrorCode.ARTIFACT_MISSING) from exc
        except Exception as exc:
            if isinstance(exc, Conflict):
                raise
            raise Unavailable(f"cannot read {rel} from the job's storage: {exc}",
                              code=ErrorCode.STORAGE_ERROR) from exc


def _safe_rel(rel: str) -> PurePosixPath:
    path = PurePosixPath(rel)
    if path.is_absolute() or not path.parts or any(p in ("", ".", "..") for p in path.parts):
        raise Conflict(f"the manifest names an unsafe path {rel!r}", code=ErrorCode.BAD_MANIFEST)
    return path


def read_manifest(reader: Reader, expected_sha256: str | None) -> Manifest:
    if not expected_sha256:
        raise Conflict("the job reported no artifacts: it ended before uploading its outputs",
                       code=ErrorCode.NO_ARTIFACTS)
    data = b"".join(reader.chunks(MANIFEST))
    if hashlib.sha256(data).hexdigest() != expected_sha256:
        raise Conflict("the artifact manifest does not match the checksum the job reported",
                       code=ErrorCode.CHECKSUM_MISMATCH)
    try:
        return Manifest.model_validate(json.loads(data))
    except (ValueError, ValidationError) as exc:
        raise Conflict("the artifact manifest is unreadable", code=ErrorCode.BAD_MANIFEST) from exc


def _fetch_one(reader: Reader, entry: ManifestEntry, dest: Path, report: ProgressCallback,
               base: int, total: int) -> FetchedFile:
    target = dest.joinpath(*_safe_rel(entry.path).parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    digest, crc, done = hashlib.sha256(), new_crc64(), 0
    with part.open("wb") as out:
        for block in reader.chunks(entry.path):
            out.write(block)
            digest.update(block)
            crc.update(block)
            done += len(block)
            report(DownloadProgress(path=entry.path, file_done=done, file_total=entry.size,
                                    done=base + done, total=total))
    if digest.hexdigest() != entry.sha256 or done != entry.size:
        part.unlink()
        raise Conflict(f"{entry.path} does not match its checksum: refused",
                       code=ErrorCode.CHECKSUM_MISMATCH, path=entry.path)
    publish(part, target)
    return FetchedFile(path=entry.path, size=done, crc64=str(crc.sum64()), sha256=entry.sha256)


def fetch(cluster: RayCluster, location: StorageLocation, manifest_sha256: str | None,
          dest: Path, report: ProgressCallback) -> list[FetchedFile]:
    reader = Reader(cluster, location)
    manifest = read_manifest(reader, manifest_sha256)
    total = sum(entry.size for entry in manifest.files)
    fetched: list[FetchedFile] = []
    for entry in manifest.files:
        fetched.append(_fetch_one(reader, entry, dest, report, sum(f.size for f in fetched), total))
    return fetched

"""Deploying a project folder to a session: manifest, the files the device lacks, done."""

import asyncio
from pathlib import Path
from typing import ClassVar

from device_bridge import protocol as p
from device_bridge.hub import DeviceHub
from device_bridge.links import Link
from device_bridge.sync import HashCache, build_manifest
from device_bridge.tab_events import Channel, TabEvent


class SyncReport(TabEvent):
    """What a deploy sent; the tabs hear it as ``devices``/``sync.done``."""

    CHANNEL: ClassVar[Channel] = "devices"
    TYPE: ClassVar[str] = "sync.done"
    sid: str
    files: int
    sent: list[str]
    bytes: int
    deleted: list[str]
    failed: list[str]


def read_chunk(path: Path, offset: int, size: int) -> bytes:
    with path.open("rb") as handle:
        handle.seek(offset)
        return handle.read(size)


async def send_file(
    link: Link, session_sid: str, root: Path, entry: p.ManifestEntry
) -> int:
    """Send one file as chunks; an empty file needs no chunk (the manifest already says so)."""
    offset = 0
    while offset < entry.size:
        payload = await asyncio.to_thread(read_chunk, root / entry.path, offset, p.CHUNK_BYTES)
        if not payload:
            break
        header = p.FileChunk(sid=session_sid, path=entry.path, offset=offset, total=entry.size)
        await link.send(p.pack_chunk(header, payload))
        offset += len(payload)
    return offset


def _listing(root: Path, only: str | None, cache: HashCache | None) -> list[dict]:
    if only is None:
        return build_manifest(root, cache)
    if (root / only).is_file():
        digest, size = (cache or HashCache()).get(root / only)
        return [{"path": only, "sha256": digest, "size": size}]
    return [{**entry, "path": f"{only}/{entry['path']}"}
            for entry in build_manifest(root / only, cache)]


async def deploy(hub: DeviceHub, project_id: str, sid: str, root: Path,
                 cache: HashCache | None = None, only: str | None = None) -> SyncReport:
    """Make the session's folder on the device equal to ``root``; only changed files travel.
    With ``only`` (a folder or a file under ``root``) just that folder's files, or that file,
    are pushed, to the same place, and nothing else on the device is touched."""
    session = hub.session(project_id, sid)
    async with session.lock:
        listed = await asyncio.to_thread(_listing, root, only, cache)
        manifest = [p.ManifestEntry(**entry) for entry in listed]
        need = await hub.request(session, p.SyncManifest(sid=sid, files=manifest, prune=only is None),
                                 "sync.need")
        entries = {entry.path: entry for entry in manifest}
        link = hub.link_for(session)
        sent, total = [], 0
        for path in need.paths:
            entry = entries.get(path)
            if entry is not None and entry.size > 0:
                total += await send_file(link, sid, root, entry)
            if entry is not None:
                sent.append(path)
        done = await hub.request(session, p.SyncDone(sid=sid), "sync.done")
    report = SyncReport(sid=sid, files=len(manifest), sent=sent, bytes=total,
                        deleted=need.deleted, failed=done.failed)
    hub.sink.emit(project_id, report)
    return report

"""Deploys and device benchmarks the project's tabs ran, kept as lineage links so the flow can
say what is on which device and how fast it ran there.

``DeviceRecords`` is the device hub's event sink: every event goes on to the project's tabs
unchanged; a deploy that succeeded (``sync.done`` without failed files) adds one ``used`` link of
kind ``deploy`` per model file of the project then (one id per deploy), and a benchmark's
``bench.result`` one link of kind ``bench`` on the model the tab's ``bench.start`` named. Both
keep the device's id; the bench link keeps its median or its error. Once written, the project
gets the event ``devices``/``flow.recorded``.
"""

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from device_bridge.deploy import SyncReport
from device_bridge.sync import SKIPPED_DIRS
from device_bridge.tab_events import BenchResultEvent, TabEvent
from server.core.cache import BoundedCache
from server.core.db import new_id
from server.core.errors import AppError
from server.core.events import EventHub
from server.files.paths import resolve
from server.flow.events import FlowRecorded
from server.lineage.models import LineageLink
from server.lineage.record import file_sha256
from server.projects.models import Project

log = logging.getLogger(__name__)

DEPLOYED_SUFFIXES = (".mnn",)
MAX_DEPLOYED_MODELS = 64
MAX_PENDING_BENCHES = 1024  # sessions whose bench has not answered (yet); the oldest go first
DeviceOf = Callable[[str, str], str | None]


def model_files(root: Path) -> list[Path]:
    """The model files a deploy of ``root`` carries (the folders a deploy skips left out)."""
    found: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        found.extend(Path(folder) / n for n in sorted(names) if n.endswith(DEPLOYED_SUFFIXES))
        if len(found) >= MAX_DEPLOYED_MODELS:
            break
    return found[:MAX_DEPLOYED_MODELS]


class DeviceRecords:
    """``device_of(project_id, sid)`` names the device of a session, while it is known."""

    def __init__(self, engine: Engine, events: EventHub) -> None:
        self._engine, self._events = engine, events
        self.device_of: DeviceOf = lambda project_id, sid: None
        self._benched: BoundedCache[tuple[str, str], str] = BoundedCache(MAX_PENDING_BENCHES)

    def emit(self, project_id: str, event: TabEvent) -> int:
        seq = self._events.emit(project_id, event)
        if isinstance(event, SyncReport | BenchResultEvent):
            device_id = self.device_of(project_id, event.sid)  # type: ignore[attr-defined]
            if device_id is not None:
                self._later(self._record, project_id, device_id, event.TYPE, event.payload())
        return seq

    def note_command(self, project_id: str, type_: str, data: dict[str, Any]) -> None:
        """A tab's command: a ``bench.start`` says which model its result will be about."""
        sid, model = data.get("sid"), data.get("model")
        if type_ == "bench.start" and isinstance(sid, str) and isinstance(model, str):
            self._benched.put((project_id, sid), model)

    def _later(self, work: Callable[..., None], *args: Any) -> None:
        """Hash and write off the event loop; the tabs have their event already."""
        try:
            asyncio.get_running_loop().run_in_executor(None, work, *args)
        except RuntimeError:  # no loop: a caller outside the server's loop
            work(*args)

    def _record(self, project_id: str, device_id: str, type_: str, data: dict[str, Any]) -> None:
        try:
            with Session(self._engine) as session:
                project = session.get(Project, project_id)
                if project is None:
                    return
                if type_ == "sync.done" and not data.get("failed"):
                    self._deployed(session, project, device_id)
                elif type_ == "bench.result" and not data.get("rid"):
                    self._measured(session, project, device_id, data)
                else:
                    return
                session.commit()
            # the tabs' flows read the record only now that it is there
            self._events.emit(project_id, FlowRecorded(device_id=device_id))
        except OSError as exc:  # a file went away while it was hashed: nothing to key it by
            log.warning("device record of %s not kept: %s", project_id, exc)

    def _deployed(self, session: Session, project: Project, device_id: str) -> None:
        deploy_id, root = new_id(), Path(project.path)
        for path in model_files(root):
            session.add(LineageLink(
                project_id=project.id, sha256=file_sha256(path), role="used", kind="deploy",
                ref_id=deploy_id, path_at_time=path.relative_to(root).as_posix(),
                size=path.stat().st_size, facts={"device_id": device_id}))

    def _measured(self, session: Session, project: Project, device_id: str,
                  data: dict[str, Any]) -> None:
        model = self._benched.pop((project.id, str(data["sid"])))
        try:
            path = resolve(project.path, model) if model else None
        except AppError:
            return  # a path outside the project: the device refused it too
        if path is None or not path.is_file():
            return
        facts = {"device_id": device_id, "ok": bool(data.get("ok")),
                 "median_ms": data.get("median_ms"), "error": data.get("error")}
        session.add(LineageLink(
            project_id=project.id, sha256=file_sha256(path), role="used", kind="bench",
            ref_id=new_id(), path_at_time=model or "", size=path.stat().st_size, facts=facts))

"""Clones as operations: ``POST /api/projects {git_url}`` answers at once with the project in
state ``cloning``; a thread fills its folder and reports on the owner's user channel.

Events (channel ``projects``, on the hub key ``user_key(user_id)``, read by ``/api/ws``):
``clone_progress`` ``{project, phase, done, total, bytes_per_second, text}`` (at most five a second,
each phase's first and last always), then one of ``clone_done`` ``{project}``, ``clone_failed``
``{project, detail, code, ...}`` (the error's extra fields, e.g. ``objects`` or ``files``) or
``clone_cancelled`` ``{project}``. A clone that does not end ready leaves no folder and no row.
A server that stops mid-clone drops those projects at its next start.
"""

import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.error_codes import ErrorCode
from server.core.errors import AppError
from server.core.events import EventHub
from server.gitflow.cliclone import Cancelled
from server.gitflow.gitcli import Step
from server.gitflow.urlpolicy import UrlPolicy
from server.projects.events import CloneCancelled, CloneDone, CloneFailed, CloneProgress
from server.projects.models import Project

PROGRESS_INTERVAL = 0.2
CLONE_TIMEOUT = 60.0


def user_key(user_id: str) -> str:
    """The hub key of a user's own channel (project ids never hold a colon)."""
    return f"user:{user_id}"


@dataclass(frozen=True)
class CloneRequest:
    url: str
    username: str | None
    password: str | None
    policy: UrlPolicy


@dataclass
class CloneJobs:
    """The clones in progress, by project id."""

    engine: Engine
    hub: EventHub
    _running: dict[str, tuple[threading.Thread, threading.Event]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, project: Project, request: CloneRequest) -> None:
        cancel = threading.Event()
        thread = threading.Thread(target=self._run, args=(project.id, project.owner_id, Path(project.path),
                                                          request, cancel), daemon=True)
        with self._lock:
            self._running[project.id] = (thread, cancel)
        thread.start()

    def cancel(self, project_id: str) -> None:
        """Stop the clone and wait until its folder and row are gone (or it has finished)."""
        with self._lock:
            running = self._running.get(project_id)
        if running is not None:
            thread, cancel = running
            cancel.set()
            thread.join()

    def close(self) -> None:
        with self._lock:
            project_ids = list(self._running)
        for project_id in project_ids:
            self.cancel(project_id)

    def _run(self, project_id: str, owner_id: str, folder: Path, request: CloneRequest,
             cancel: threading.Event) -> None:
        from server.gitflow.service import clone

        key = user_key(owner_id)
        report = ProgressReport(self.hub, key, project_id)
        try:
            clone(request.url, folder, request.username, request.password, CLONE_TIMEOUT,
                  policy=request.policy, on_step=report, cancel=cancel)
            self._finish(project_id, folder, ready=True)
            self.hub.emit(key, CloneDone(project=project_id))
        except Cancelled:
            self._finish(project_id, folder, ready=False)
            self.hub.emit(key, CloneCancelled(project=project_id))
        except Exception as exc:
            self._finish(project_id, folder, ready=False)
            self.hub.emit(key, CloneFailed(project=project_id, **_error_data(exc)))
        finally:
            with self._lock:
                self._running.pop(project_id, None)

    def _finish(self, project_id: str, folder: Path, ready: bool) -> None:
        with Session(self.engine) as session:
            project = session.get(Project, project_id)
            if project is not None and ready:
                project.state = "ready"
                session.add(project)
            elif project is not None:
                session.delete(project)
            session.commit()
        if not ready:
            shutil.rmtree(folder, ignore_errors=True)


def _error_data(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, AppError):
        return {"detail": exc.detail, "code": exc.code, **exc.extra}
    return {"detail": "the clone failed", "code": ErrorCode.CLONE_FAILED}


class ProgressReport:
    """Publishes clone steps: a phase's first and last step always, others five a second."""

    def __init__(self, hub: EventHub, key: str, project_id: str) -> None:
        self.hub, self.key, self.project_id = hub, key, project_id
        self.phase, self.last = "", float("-inf")

    def __call__(self, step: Step) -> None:
        if step.phase == "message":
            return
        now = time.monotonic()
        edge = step.phase != self.phase or step.done == step.total
        if not edge and now - self.last < PROGRESS_INTERVAL:
            return
        self.phase, self.last = step.phase, now
        self.hub.emit(self.key, CloneProgress(
            project=self.project_id, phase=step.phase, done=step.done, total=step.total,
            bytes_per_second=step.bytes_per_second, text=step.text))


def drop_abandoned(engine: Engine) -> None:
    """Projects left ``cloning`` by a server that stopped: their folders and rows go."""
    with Session(engine) as session:
        for project in session.exec(select(Project).where(Project.state == "cloning")):
            shutil.rmtree(project.path, ignore_errors=True)
            session.delete(project)
        session.commit()

"""What the flow reads of a project: its newest job and tool runs, their lineage links, and
whether a file still holds the content a link names (hashed once per request)."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlmodel import Session, col, select

from server.core.errors import AppError
from server.files.paths import resolve
from server.flow.models import FlowArtifact
from server.lineage.models import LineageLink
from server.lineage.record import file_sha256
from server.modeltools.models import ToolRun
from server.projects.models import Project
from server.training.marks import MarkedJob, marked_job
from server.training.models import Job


def name(path: str) -> str:
    return Path(path).name


@dataclass(frozen=True)
class Made:
    """A file a step made: where it was written and the content it had."""

    path: str
    sha256: str


class Facts:
    def __init__(self, session: Session, project: Project) -> None:
        self.session, self.project = session, project
        self._hashes: dict[str, str | None] = {}

    def sha_of(self, rel: str) -> str | None:
        """The sha256 of the project file ``rel`` now; None when it is not a file."""
        if rel not in self._hashes:
            try:
                path = resolve(self.project.path, rel)
                self._hashes[rel] = file_sha256(path) if path.is_file() else None
            except (OSError, AppError):
                self._hashes[rel] = None
        return self._hashes[rel]

    def holds(self, made: Made) -> bool:
        return self.sha_of(made.path) == made.sha256

    def artifact(self, made: Made) -> FlowArtifact:
        lineage = f"/api/projects/{self.project.id}/lineage?path={quote(made.path)}"
        return FlowArtifact(path=made.path, sha256=made.sha256, lineage=lineage)

    def newest_job(self, *where: Any) -> Job | None:
        query = select(Job).where(Job.project_id == self.project.id, *where)
        return self.session.exec(query.order_by(col(Job.created_at).desc())).first()

    def marked(self) -> MarkedJob | None:
        """The project's mark on a job ("Use this model"), whether or not that job still exists."""
        return marked_job(self.session, self.project.id)

    def job(self, job_id: str) -> Job | None:
        job = self.session.get(Job, job_id)
        return job if job is not None and job.project_id == self.project.id else None

    def newest_run(self, tool: str, *where: Any) -> ToolRun | None:
        query = select(ToolRun).where(ToolRun.project_id == self.project.id, ToolRun.tool == tool,
                                      *where)
        return self.session.exec(query.order_by(col(ToolRun.created_at).desc())).first()

    def links(self, *where: Any) -> list[LineageLink]:
        """The project's links that match, newest first."""
        query = select(LineageLink).where(LineageLink.project_id == self.project.id, *where)
        return list(self.session.exec(query.order_by(col(LineageLink.id).desc())))

    def made_by(self, kind: str, ref_id: str) -> list[Made]:
        links = self.links(LineageLink.kind == kind, LineageLink.ref_id == ref_id,
                           LineageLink.role == "made")
        return [Made(link.path_at_time, link.sha256) for link in reversed(links)]

    def used_by(self, kind: str, ref_id: str) -> list[Made]:
        links = self.links(LineageLink.kind == kind, LineageLink.ref_id == ref_id,
                           LineageLink.role == "used")
        return [Made(link.path_at_time, link.sha256) for link in reversed(links)]

    def job_metrics(self, job_id: str) -> dict[str, Any]:
        """The last metrics a job reported, as its links keep them."""
        link = next(iter(self.links(LineageLink.kind == "job", LineageLink.ref_id == job_id)), None)
        metrics = link.facts.get("metrics") if link else None
        return metrics if isinstance(metrics, dict) else {}

    @property
    def root(self) -> Path:
        return Path(self.project.path)

"""The lineage of a project file: what made it, from what, and what was measured on it.

Read from the links ``server/lineage/record.py`` writes: the file's sha256 → the tool run or job
that made it → (for a tool run) the files it read, explained the same way → (for a job) the
commit it ran → plus the compare / benchmark / inspect runs that read this very file.
"""

from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, NotFound
from server.files.paths import resolve
from server.lineage.commits import commit_facts
from server.lineage.models import LineageEdge, LineageGraph, LineageLink, LineageNode
from server.lineage.record import file_sha256
from server.modeltools.models import ToolRun
from server.projects.models import Project
from server.training.models import Job

MAX_DEPTH = 16
MAKING_TOOLS = ("convert", "quantize", "llm-export")
RESULT_SKIP = ("ops", "layers", "outputs", "inputs", "tensors")


def _scalars(result: dict[str, Any] | None) -> dict[str, Any]:
    """A run's headline figures: its scalar results (tables such as per-op rows left out)."""
    return {k: v for k, v in (result or {}).items()
            if k not in RESULT_SKIP and isinstance(v, (int, float, str, bool))}


def _still_there(root: str, rel: str, sha: str, size: int) -> bool:
    """Whether ``rel`` still holds the content it had when the link was written."""
    try:
        path = resolve(root, rel)
        return path.is_file() and path.stat().st_size == size and file_sha256(path) == sha
    except (OSError, AppError):
        return False


class _Builder:
    def __init__(self, session: Session, project: Project) -> None:
        self._session, self._project = session, project
        self._nodes: dict[str, LineageNode] = {}
        self._edges: list[LineageEdge] = []
        self._explained: set[str] = set()

    def graph(self) -> LineageGraph:
        return LineageGraph(nodes=list(self._nodes.values()), edges=self._edges)

    def _node(self, node: LineageNode) -> str:
        self._nodes.setdefault(node.id, node)
        return node.id

    def _edge(self, source: str, target: str, kind: str) -> None:
        edge = LineageEdge(source=source, target=target, kind=kind)  # type: ignore[arg-type]
        if edge not in self._edges:
            self._edges.append(edge)

    def _links(self, *where: Any) -> list[LineageLink]:
        query = select(LineageLink).where(LineageLink.project_id == self._project.id, *where)
        return list(self._session.exec(query.order_by(col(LineageLink.id))))

    def file(self, sha: str, path: str, size: int, exists: bool) -> str:
        name = Path(path).name
        data = {"path": path, "sha256": sha, "size": size, "exists": exists}
        return self._node(LineageNode(id=f"file:{sha}", kind="file", label=name, data=data))

    def explain(self, sha: str, depth: int = 0) -> None:
        """Add what made the file ``sha``, and recursively what made that from what."""
        if sha in self._explained or depth > MAX_DEPTH:
            return
        self._explained.add(sha)
        for link in self._links(LineageLink.sha256 == sha, LineageLink.role == "made"):
            if link.kind == "tool_run":
                self._tool_run(link.ref_id, f"file:{sha}", depth)
            elif link.kind == "job":
                self._job(link, f"file:{sha}")

    def _tool_run(self, run_id: str, made: str, depth: int) -> None:
        run = self._session.get(ToolRun, run_id)
        if run is None:
            return
        data = {"tool": run.tool, "status": run.status, "args": run.args,
                "result": _scalars(run.result), "created_at": run.created_at.isoformat()}
        node = self._node(LineageNode(id=f"tool_run:{run.id}", kind="tool_run", label=run.tool,
                                      data=data))
        self._edge(node, made, "made")
        for link in self._links(LineageLink.ref_id == run.id, LineageLink.role == "used"):
            exists = _still_there(self._project.path, link.path_at_time, link.sha256, link.size)
            source = self.file(link.sha256, link.path_at_time, link.size, exists)
            self._edge(source, node, "input")
            self.explain(link.sha256, depth + 1)

    def _job(self, link: LineageLink, made: str) -> None:
        job = self._session.get(Job, link.ref_id)
        if job is None:
            return
        data = {"job_id": job.id, "backend": job.backend, "command": job.command,
                "commit": job.commit, "status": job.status, "exit_code": job.exit_code,
                "metrics": link.facts.get("metrics") or {},
                "cloud_job_id": link.facts.get("cloud_job_id"),
                "created_at": job.created_at.isoformat(),
                "finished_at": job.finished_at.isoformat() if job.finished_at else None}
        label = f"{job.backend} job {job.id[:8]}"
        node = self._node(LineageNode(id=f"job:{job.id}", kind="job", label=label, data=data))
        self._edge(node, made, "made")
        if job.commit:
            facts = commit_facts(self._project.path, job.commit)
            commit = self._node(LineageNode(id=f"commit:{job.commit}", kind="commit",
                                            label=job.commit[:10], data=facts))
            self._edge(commit, node, "built")

    def measurements(self, sha: str) -> None:
        """The runs that read the file without making a model from it: compare, benchmark, …"""
        for link in self._links(LineageLink.sha256 == sha, LineageLink.role == "used",
                                LineageLink.kind == "tool_run"):
            run = self._session.get(ToolRun, link.ref_id)
            if run is None or run.tool in MAKING_TOOLS:
                continue
            data = {"tool": run.tool, "status": run.status, "args": run.args,
                    "device": _device(run), "figures": {**_scalars(run.result), **(link.facts or {})},
                    "created_at": run.created_at.isoformat()}
            node = self._node(LineageNode(id=f"run:{run.id}", kind="run", label=run.tool,
                                          data=data))
            self._edge(f"file:{sha}", node, "measured")


def _device(run: ToolRun) -> str:
    """Where the run measured: a paired device it named, else the server's own CPU."""
    threads = run.args.get("threads")
    where = f"device {run.args['device_id']}" if run.args.get("device_id") else "server CPU"
    return f"{where}, {threads} thread(s)" if threads else where


def lineage_of(session: Session, project: Project, path: str) -> LineageGraph:
    """The chain that made the project file ``path``, and the runs measured on it."""
    full = resolve(project.path, path)
    if not full.is_file():
        raise NotFound(f"{path}: no such file", code=ErrorCode.FILE_NOT_FOUND)
    sha = file_sha256(full)
    builder = _Builder(session, project)
    builder.file(sha, path, full.stat().st_size, True)
    builder.explain(sha)
    builder.measurements(sha)
    return builder.graph()

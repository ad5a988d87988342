"""Writing lineage links: each service that makes or uses files reports here with one call.

Files are keyed by their sha256, so a link still finds a file after a rename or a restart.
"""

import hashlib
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from server.core.errors import AppError
from server.files.paths import relative, resolve
from server.lineage.models import LineageLink
from server.modeltools.models import ToolRun
from server.projects.models import Project
from server.training.logfile import read_metrics
from server.training.models import Job
from server.training.paidlc.watch import load_state

CHUNK = 1 << 20
MAX_JOB_FILES = 2000
# Argument fields of a tool run that name a model file it read (``models``: a list of them).
USED_ARGS = ("model", "reference", "other", "models")
# Per-model figures an evaluate run's result holds, kept on the link of each model it read
EVALUATED_FIGURES = ("top1", "top5", "map50", "drop", "median_ms")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _link(session: Session, project_id: str, role: str, kind: str, ref_id: str, root: str,
          path: Path, facts: dict[str, Any]) -> None:
    """Add one link unless the same one is there (a job's outputs, then its pulled copy)."""
    try:
        sha, size = file_sha256(path), path.stat().st_size
    except OSError:
        return  # gone since the run ended: nothing to key it by
    query = select(LineageLink).where(
        LineageLink.project_id == project_id, LineageLink.sha256 == sha, LineageLink.role == role,
        LineageLink.kind == kind, LineageLink.ref_id == ref_id)
    if session.exec(query).first() is not None:
        return
    session.add(LineageLink(project_id=project_id, sha256=sha, role=role, kind=kind,
                            ref_id=ref_id, path_at_time=relative(root, path), size=size,
                            facts=facts))


def _project_file(root: str, rel: Any) -> Path | None:
    if not isinstance(rel, str):
        return None
    try:
        path = resolve(root, rel)
    except AppError:
        return None
    return path if path.is_file() else None


def record_tool_run(engine: Engine, run_id: str, root: str, result: dict[str, Any]) -> None:
    """A run that succeeded with ``result``: the model files it read, and the file it wrote."""
    with Session(engine) as session:
        run = session.get(ToolRun, run_id)
        if run is None:
            return
        named = [run.args.get(name) for name in USED_ARGS]
        listed = [rel for value in named for rel in (value if isinstance(value, list) else [value])]
        made = _project_file(root, result.get("output"))
        for path in filter(None, (_project_file(root, rel) for rel in listed)):
            facts = _figures(result, relative(root, path))
            _link(session, run.project_id, "used", "tool_run", run.id, root, path, facts)
        if made is not None:
            _link(session, run.project_id, "made", "tool_run", run.id, root, made, {})
        session.commit()


def _figures(result: dict[str, Any], rel: str) -> dict[str, Any]:
    """What a run measured on the model ``rel`` alone: an evaluate run's row of it."""
    rows = result.get("models")
    row = next((r for r in rows if isinstance(r, dict) and r.get("model") == rel), None) \
        if isinstance(rows, list) else None
    if row is None:
        return {}
    return {key: row[key] for key in EVALUATED_FIGURES if isinstance(row.get(key), (int, float))}


def job_facts(job_dir: Path) -> dict[str, Any]:
    """What a job's own folder says of it: its last metrics and, for a cloud job, its id there."""
    points = read_metrics(job_dir)
    cloud = load_state(job_dir) if job_dir.is_dir() else None
    return {"metrics": points[-1] if points else {},
            "cloud_job_id": cloud.cloud_job_id if cloud else None}


def record_job_files(session: Session, job: Job, root: str, folder: Path, job_dir: Path) -> None:
    """Every file a job left in ``folder`` (its outputs, or its pulled artifacts); ``job_dir`` is
    the job's folder in the data dir (metrics, cloud state)."""
    if not folder.is_dir():
        return
    facts = job_facts(job_dir)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    for path in files[:MAX_JOB_FILES]:
        _link(session, job.project_id, "made", "job", job.id, root, path, facts)
    session.commit()


def record_job_outputs(session: Session, job: Job, jobs_dir: Path) -> None:
    """A local job has ended: the files it wrote under ``<project>/outputs/<job id>/``."""
    project = session.get(Project, job.project_id)
    if project is not None:
        folder = Path(project.path) / "outputs" / job.id
        record_job_files(session, job, project.path, folder, jobs_dir / job.id)

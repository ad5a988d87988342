"""The team registry: versions published from projects, files by hash, rows in the database."""

from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, NotFound
from server.files.paths import resolve
from server.lineage.models import LineageGraph
from server.lineage.service import lineage_of
from server.market import blobs, owners, publishing
from server.market.models import MarketVersion
from server.market.package import (
    MANIFEST_NAME,
    FileEntry,
    FileRole,
    LatencyFigure,
    PackageManifest,
    dump_manifest,
)
from server.market.schemas import PublishRequest
from server.projects.models import Project
from server.users.models import User

NAME = "registry"
MODEL_SUFFIXES = {".mnn": "model", ".onnx": "source-model", ".tflite": "source-model",
                  ".pb": "source-model", ".caffemodel": "source-model", ".pt": "source-model"}
SAMPLE_SUFFIXES = {".npy", ".npz", ".png", ".jpg", ".jpeg", ".wav", ".csv"}


def role_of(path: str) -> FileRole:
    pure = PurePosixPath(path)
    suffix = pure.suffix.lower()
    if suffix in MODEL_SUFFIXES:
        role: FileRole = "model" if suffix == ".mnn" else "source-model"
        return role
    if pure.name.lower() == "readme.md":
        return "readme"
    if suffix == ".py":
        return "demo"
    if pure.name.lower() == "labels.txt":
        return "labels"
    return "sample" if suffix in SAMPLE_SUFFIXES else "other"


def merged(graphs: list[LineageGraph]) -> LineageGraph | None:
    """One graph of the lineages of several files (nodes and edges shared once)."""
    if not graphs:
        return None
    nodes = {node.id: node for graph in graphs for node in graph.nodes}
    edges = {(e.source, e.target, e.kind): e for graph in graphs for e in graph.edges}
    return LineageGraph(nodes=list(nodes.values()), edges=list(edges.values()))


def _row(session: Session, id: str, version: str) -> MarketVersion | None:
    query = select(MarketVersion).where(MarketVersion.package_id == id,
                                        MarketVersion.version == version)
    return session.exec(query).first()


def _previous(session: Session, id: str) -> dict[str, Any]:
    last = session.exec(select(MarketVersion).where(MarketVersion.package_id == id)
                        .order_by(MarketVersion.id.desc())).first()  # type: ignore[union-attr]
    return dict(last.manifest) if last else {}


def _latency(graph: LineageGraph, model: FileEntry) -> list[LatencyFigure]:
    """The benchmark runs measured on the model file, as the lineage recorded them."""
    runs = {e.target for e in graph.edges
            if e.kind == "measured" and e.source == f"file:{model.sha256}"}
    figures = []
    for node in graph.nodes:
        median = node.data.get("figures", {}).get("median_ms")
        if node.id in runs and node.data.get("tool") == "benchmark" and median is not None:
            args = node.data.get("args", {})
            figures.append(LatencyFigure(device=node.data.get("device", "server CPU"),
                                         threads=args.get("threads") or 1, median_ms=median,
                                         runs=args.get("loops") or 1))
    return figures


def _project_files(project: Project, paths: list[str]) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for rel in dict.fromkeys(paths):
        full = resolve(project.path, rel)
        if not full.is_file():
            raise NotFound(f"{rel}: no such file", code=ErrorCode.FILE_NOT_FOUND)
        files[PurePosixPath(rel).as_posix()] = full
    return files


def _store(settings: Settings, files: dict[str, Path], names: dict[str, str],
           toml: PackageManifest | None) -> list[FileEntry]:
    listed = {f.path: f.role for f in toml.files} if toml is not None else {}
    entries = []
    for rel, name in names.items():
        sha, size = blobs.store(settings, files[rel])
        entries.append(FileEntry(path=name, sha256=sha, size=size,
                                 role=listed.get(name) or role_of(name)))
    if not entries:
        raise Invalid("list at least one file besides algorithm.toml", code=ErrorCode.NO_FILES)
    return entries


def publish(session: Session, settings: Settings, user: User, project: Project,
            body: PublishRequest) -> MarketVersion:
    owners.check_owner(session, body.id, project)
    if _row(session, body.id, body.version) is not None:
        raise Conflict(f"{body.id} {body.version} is already published", code=ErrorCode.VERSION_EXISTS)
    files = _project_files(project, body.files)
    toml = publishing.listed_toml(files)
    names = publishing.package_paths(files)
    entries = _store(settings, files, names, toml)
    in_project = {name: rel for rel, name in names.items()}
    graphs = {e.path: lineage_of(session, project, in_project[e.path]) for e in entries
              if e.role in ("model", "source-model")}
    model = next((e for e in entries if e.role == "model"), None)
    measured = _latency(graphs[model.path], model) if model is not None else []
    spec_io = publishing.spec_io(files[in_project[model.path]]) if model is not None else None
    found = publishing.Sources(toml=toml, previous=_previous(session, body.id), spec_io=spec_io)
    manifest = publishing.manifest(body, user.name, found, entries,
                                   publishing.metrics(body, toml, entries, measured))
    lineage = merged(list(graphs.values()))
    readme = next((files[in_project[e.path]].read_text("utf-8", "replace")
                   for e in manifest.files if e.role == "readme"), "")
    row = MarketVersion(package_id=body.id, version=body.version,
                        manifest=manifest.model_dump(mode="json"), readme=readme[:200_000],
                        lineage=lineage.model_dump(mode="json") if lineage else None,
                        publisher=user.name, project_id=project.id)
    _insert(session, row, project)
    return row


def _insert(session: Session, row: MarketVersion, project: Project) -> None:
    """Add the version, and the id's owner if it is new, in one transaction."""
    owners.claim(session, row.package_id, project)
    session.add(row)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        # Another publish of the same id or version got in first: answer as if it had been seen.
        owners.check_owner(session, row.package_id, project)
        raise Conflict(f"{row.package_id} {row.version} is already published",
                       code=ErrorCode.VERSION_EXISTS) from None
    session.refresh(row)


def versions(session: Session, id: str | None = None) -> list[MarketVersion]:
    query = select(MarketVersion).order_by(MarketVersion.id)  # type: ignore[arg-type]
    if id is not None:
        query = query.where(MarketVersion.package_id == id)
    return list(session.exec(query).all())


def get_version(session: Session, id: str, version: str) -> MarketVersion:
    row = _row(session, id, version)
    if row is None:
        raise NotFound(f"no published version {id} {version}", code=ErrorCode.VERSION_NOT_FOUND)
    return row


def delete_version(session: Session, settings: Settings, id: str, version: str) -> None:
    row = get_version(session, id, version)
    shas = {f["sha256"] for f in row.manifest["files"]}
    session.delete(row)
    session.commit()
    keep = {f["sha256"] for other in versions(session) for f in other.manifest["files"]}
    blobs.remove_unused(settings, keep, shas)


def set_deprecated(session: Session, id: str, version: str, deprecated: bool) -> MarketVersion:
    row = get_version(session, id, version)
    row.deprecated = deprecated
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


class RegistrySource:
    """The registry as a source the market lists and installs from."""

    name = NAME

    def __init__(self, session: Session, settings: Settings) -> None:
        self.session, self.settings = session, settings

    def entries(self) -> list[PackageManifest]:
        return [PackageManifest.model_validate(row.manifest) for row in versions(self.session)]

    def download(self, id: str, version: str, dest: Path) -> Path:
        manifest = PackageManifest.model_validate(get_version(self.session, id, version).manifest)
        dest.mkdir(parents=True, exist_ok=True)
        for entry in manifest.files:
            blobs.copy_out(self.settings, entry, dest / entry.path)
        (dest / MANIFEST_NAME).write_text(dump_manifest(manifest), encoding="utf-8")
        return dest

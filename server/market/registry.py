"""The team registry: versions published from projects, files by hash, rows in the database."""

from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from server.core.config import Settings
from server.core.errors import Conflict, Invalid, NotFound
from server.files.paths import resolve
from server.lineage.models import LineageGraph
from server.lineage.service import lineage_of
from server.market import blobs, owners
from server.market.models import MarketVersion
from server.market.package import (
    MANIFEST_NAME,
    Demo,
    FileEntry,
    FileRole,
    LatencyFigure,
    Metrics,
    PackageManifest,
    dump_manifest,
    parse_manifest,
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


def _base_manifest(session: Session, body: PublishRequest, files: dict[str, Path]) -> dict[str, Any]:
    """What the new version starts from: a listed ``algorithm.toml``, else the last version."""
    toml = next((p for rel, p in files.items() if PurePosixPath(rel).name == MANIFEST_NAME), None)
    if toml is not None:
        base = parse_manifest(toml.read_text(encoding="utf-8")).model_dump()
    else:
        last = session.exec(select(MarketVersion).where(MarketVersion.package_id == body.id)
                            .order_by(MarketVersion.id.desc())).first()  # type: ignore[union-attr]
        base = dict(last.manifest) if last else {}
    base.pop("metrics", None)  # figures of another model never carry over
    return base


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
            raise NotFound(f"{rel}: no such file", code="file_not_found")
        files[PurePosixPath(rel).as_posix()] = full
    return files


def _package_paths(files: dict[str, Path]) -> dict[str, str]:
    """Project path → path in the package: relative to a listed ``algorithm.toml``'s folder
    (so an installed package republishes as it was), else the project path itself."""
    tomls = [PurePosixPath(rel) for rel in files if PurePosixPath(rel).name == MANIFEST_NAME]
    if len(tomls) > 1:
        raise Invalid(f"list at most one {MANIFEST_NAME}", code="bad_manifest")
    if not tomls:
        return {rel: rel for rel in files}
    folder = tomls[0].parent
    outside = [rel for rel in files if not PurePosixPath(rel).is_relative_to(folder)]
    if outside:
        raise Invalid(f"{outside[0]} is outside the folder of {tomls[0]}", code="outside_package")
    return {rel: PurePosixPath(rel).relative_to(folder).as_posix() for rel in files
            if PurePosixPath(rel) != tomls[0]}


def _store(settings: Settings, files: dict[str, Path], names: dict[str, str],
           base: dict[str, Any]) -> list[FileEntry]:
    listed = {f["path"]: f["role"] for f in base.get("files", [])}
    entries = []
    for rel, name in names.items():
        sha, size = blobs.store(settings, files[rel])
        entries.append(FileEntry(path=name, sha256=sha, size=size,
                                 role=listed.get(name) or role_of(name)))
    if not entries:
        raise Invalid("list at least one file besides algorithm.toml", code="no_files")
    return entries


def publish(session: Session, settings: Settings, user: User, project: Project,
            body: PublishRequest) -> MarketVersion:
    owners.check_owner(session, body.id, project)
    if _row(session, body.id, body.version) is not None:
        raise Conflict(f"{body.id} {body.version} is already published", code="version_exists")
    files = _project_files(project, body.files)
    base = _base_manifest(session, body, files)
    names = _package_paths(files)
    manifest = _manifest(base, body, user, _store(settings, files, names, base))
    in_project = {name: rel for rel, name in names.items()}
    graphs = {e.path: lineage_of(session, project, in_project[e.path]) for e in manifest.files
              if e.role in ("model", "source-model")}
    model = manifest.model_file()
    if model is not None:
        manifest.metrics.latency = _latency(graphs[model.path], model)
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
                       code="version_exists") from None
    session.refresh(row)


def _manifest(base: dict[str, Any], body: PublishRequest, user: User,
              entries: list[FileEntry]) -> PackageManifest:
    model = next((e for e in entries if e.role == "model"), None)
    demo = next((e.path for e in entries if e.role == "demo"), None)
    metrics = Metrics(size_bytes=model.size if model else None)
    return PackageManifest(
        id=body.id, version=body.version, name=body.name or base.get("name") or body.id,
        task=body.task if body.task is not None else base.get("task", ""),
        summary=body.summary if body.summary is not None else base.get("summary", ""),
        license=base.get("license", ""), authors=base.get("authors") or [user.name],
        inputs=base.get("inputs", []), outputs=base.get("outputs", []), metrics=metrics,
        demo=Demo(entry=demo) if demo else None, files=entries)


def versions(session: Session, id: str | None = None) -> list[MarketVersion]:
    query = select(MarketVersion).order_by(MarketVersion.id)  # type: ignore[arg-type]
    if id is not None:
        query = query.where(MarketVersion.package_id == id)
    return list(session.exec(query).all())


def get_version(session: Session, id: str, version: str) -> MarketVersion:
    row = _row(session, id, version)
    if row is None:
        raise NotFound(f"no published version {id} {version}", code="version_not_found")
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

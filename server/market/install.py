"""Installing a package into a project: fetched into a staging folder, checked, then copied in.

The package lands in ``market/<id>/`` of the project with its ``algorithm.toml``, so its demo
runs at once. Nothing reaches the project (and no new project is made) unless every listed path
and every entry of the fetched folder is safe (``safety``) and every file matched its sha256;
then only ``algorithm.toml`` and the files it lists are copied in.
"""

import shutil
import tempfile
from pathlib import Path

from sqlmodel import Session

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.core.fsutil import publish, storage_errors
from server.files.paths import resolve
from server.market import safety, service
from server.market.package import (
    MANIFEST_NAME,
    PackageManifest,
    copy_package,
    read_manifest,
    verify_folder,
)
from server.market.schemas import InstallRequest, InstallResult
from server.projects import service as projects
from server.projects.models import Project, ProjectCreate
from server.projects.tracking import track_new
from server.users.models import User

FOLDER = "market"


def _staged(session: Session, settings: Settings, id: str, version: str, source: str | None,
            stage: Path) -> PackageManifest:
    chosen, manifests = service.find(session, settings, id, source)
    listed = next((m for m in manifests if m.version == version), None)
    if listed is None:
        raise Invalid(f"{id} has no version {version}", code=ErrorCode.VERSION_NOT_FOUND)
    # Refused before the source writes anything, even to the staging folder.
    safety.check_paths(entry.path for entry in listed.files)
    folder = chosen.download(id, version, stage / "package")
    manifest = read_manifest(folder)
    if (manifest.id, manifest.version) != (id, version):
        raise Invalid(f"the source sent {manifest.id} {manifest.version}, not {id} {version}",
                      code=ErrorCode.BAD_MANIFEST)
    verify_folder(folder, manifest)
    return manifest


def _move_in(project: Project, manifest: PackageManifest, folder: Path) -> list[str]:
    base = resolve(project.path, FOLDER)
    target = resolve(project.path, f"{FOLDER}/{manifest.id}")
    if target.exists():
        raise Conflict(f"{FOLDER}/{manifest.id} already exists in the project",
                       code=ErrorCode.ALREADY_INSTALLED)
    made_base = not base.exists()
    with storage_errors(f"{FOLDER}/{manifest.id}"):
        base.mkdir(exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{manifest.id}.", suffix=".partial", dir=base))
        try:
            copy_package(folder, manifest, partial)
            publish(partial, target)
        except BaseException:
            if made_base:
                shutil.rmtree(base, ignore_errors=True)
            raise
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    return [f"{FOLDER}/{manifest.id}/{rel}"
            for rel in [MANIFEST_NAME, *(entry.path for entry in manifest.files)]]


def install(session: Session, settings: Settings, user: User, id: str, version: str,
            body: InstallRequest) -> InstallResult:
    # The caller's rights on an existing project are checked before any download.
    existing = (projects.get_project(session, user, body.project_id, "write")
                if body.project_id is not None else None)
    staging = settings.data_dir / "market" / "staging"
    staging.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=staging))
    try:
        manifest = _staged(session, settings, id, version, body.source, stage)
        project = existing or projects.create_project(session, settings, user, ProjectCreate(
            name=body.new_project or "", template="empty", git=False))
        files = _move_in(project, manifest, stage / "package")
        if existing is None and body.git:
            track_new(session, user, Path(project.path))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    demo = f"{FOLDER}/{manifest.id}/{manifest.demo.entry}" if manifest.demo else None
    return InstallResult(project_id=project.id, files=files, demo=demo)

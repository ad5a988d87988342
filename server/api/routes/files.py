"""Project files."""

from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse

from server.api.deps import (
    ClientId,
    EditableProject,
    HubDep,
    ProjectDep,
    SettingsDep,
    WatchersDep,
)
from server.api.openapi import errors
from server.core.errors import TooLarge
from server.files import changes, service, trash
from server.files.models import Entry, FileContent, FileOp, FileSave, OpResult, Saved

router = APIRouter(prefix="/api/projects/{pid}/files", tags=["files"])
UPLOAD_CHUNK = 1024 * 1024


@router.get("")
def list_dir(project: ProjectDep, path: str = "", all: bool = False) -> list[Entry]:
    return service.list_dir(project.path, path, show_all=all)


@router.get("/content")
def read_file(project: ProjectDep, settings: SettingsDep, path: str) -> FileContent:
    return service.read_file(project.path, path, settings.file_read_max_bytes)


@router.put("/content")
async def save_file(
    body: FileSave, project: EditableProject, hub: HubDep, watchers: WatchersDep,
    client: ClientId, path: str,
) -> Saved:
    return await changes.save(hub, watchers, project.id, project.path, path, body, client)


@router.post("/ops")
def file_op(
    body: FileOp, project: EditableProject, settings: SettingsDep, hub: HubDep, client: ClientId
) -> OpResult:
    """A delete moves the file or folder to the project's trash (docs/api.md), from where
    ``…/trash/{trash_id}/restore`` puts it back."""
    return changes.apply_op(hub, project.id, project.path, body, trash.folder(settings, project.id),
                            client)


@router.post("/trash/{trash_id}/restore", responses=errors(404, 409))
def restore_from_trash(
    trash_id: str, project: EditableProject, settings: SettingsDep, hub: HubDep, client: ClientId
) -> OpResult:
    """Puts a deleted file or folder back where it was (409 ``exists`` when something stands
    there now)."""
    return changes.restore(hub, project.id, project.path, trash.folder(settings, project.id),
                           trash_id, client)


@router.post("/upload", status_code=201)
async def upload(
    request: Request, project: EditableProject, settings: SettingsDep, hub: HubDep,
    client: ClientId, files: list[UploadFile], dir: Annotated[str, Form()] = "",
) -> list[Entry]:
    declared = int(request.headers.get("content-length") or 0)
    if declared > settings.upload_max_bytes * max(len(files), 1) + UPLOAD_CHUNK:
        raise TooLarge(f"the upload is larger than the limit of {settings.upload_max_bytes} bytes")
    entries = []
    for upload_file in files:
        chunks = _chunks(upload_file)
        target = await run_in_threadpool(
            service.store_upload, project.path, dir, upload_file.filename or "",
            chunks, settings.upload_max_bytes,
        )
        entries.append(service.entry_for(project.path, target))
    return changes.uploaded(hub, project.id, entries, client)


def _chunks(upload_file: UploadFile) -> Iterator[bytes]:
    while chunk := upload_file.file.read(UPLOAD_CHUNK):
        yield chunk


@router.get("/raw")
def raw(project: ProjectDep, path: str) -> FileResponse:
    target = service.raw_path(project.path, path)
    # Served as an opaque download so no project file can run as a page on this origin.
    return FileResponse(
        target,
        media_type="application/octet-stream",
        filename=target.name,
        headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"},
    )

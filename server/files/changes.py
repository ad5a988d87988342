"""File changes made through the API, each told to the project's tabs as a ``files``/``changed``
event with the ``client`` that made it (so a tab recognises its own; docs/protocol.md)."""

from pathlib import Path

from anyio import to_thread

from server.core.events import EventHub
from server.files import service, trash
from server.files.events import ChangedPath, FilesChanged
from server.files.models import Entry, FileOp, FileSave, OpResult, Saved
from server.files.watch import FileWatchers


def tell(hub: EventHub, project_id: str, changes: list[ChangedPath], client: str | None) -> None:
    hub.emit(project_id, FilesChanged(changes=changes, client=client))


async def save(hub: EventHub, watchers: FileWatchers, project_id: str, root: str, path: str,
               body: FileSave, client: str | None) -> Saved:
    """Saves the file in a worker thread (it waits on the disk), then tells the tabs."""
    saved = await to_thread.run_sync(
        service.save_file, root, path, body.content, body.etag, body.encoding)
    watchers.note_write(service.resolve(root, saved.path))
    tell(hub, project_id, [{"kind": "modified", "path": saved.path, "etag": saved.etag}], client)
    return saved


def apply_op(hub: EventHub, project_id: str, root: str, body: FileOp, trash_dir: Path,
             client: str | None) -> OpResult:
    """A delete moves the file or folder to ``trash_dir``, from where ``restore`` puts it back."""
    target, trash_id = service.apply_op(root, body, trash_dir)
    rel = service.relative(root, target)
    changes: list[ChangedPath]
    if body.op == "rename":
        changes = [{"kind": "deleted", "path": body.path}, {"kind": "added", "path": rel}]
    else:
        changes = [{"kind": "deleted" if body.op == "delete" else "added", "path": rel}]
    tell(hub, project_id, changes, client)
    return OpResult(path=rel, trash_id=trash_id)


def restore(hub: EventHub, project_id: str, root: str, trash_dir: Path, trash_id: str,
            client: str | None) -> OpResult:
    target = trash.restore(trash_dir, root, trash_id)
    rel = service.relative(root, target)
    tell(hub, project_id, [{"kind": "added", "path": rel}], client)
    return OpResult(path=rel)


def uploaded(hub: EventHub, project_id: str, entries: list[Entry], client: str | None) -> list[Entry]:
    """Tells the tabs of the files an upload just stored."""
    tell(hub, project_id, [{"kind": "added", "path": e.path} for e in entries], client)
    return entries

"""A language server's edits (a rename's) applied to files that no editor has open (docs/ide.md).

The paths go through the files service's confinement (``server/files/paths.py``): one path
outside the project, in ``.git`` or too long refuses the whole request before any file is read.
A preview reads each file and answers its changed lines and its etag; an apply makes every file's
new text before the first is written, and writes nothing if one of them cannot be made (changed
since the preview, an edit that does not fit): a rename is all or nothing. Each write is a save
with the previewed etag (checked again under the save lock), and answers the edits that undo it.
"""

from anyio import to_thread

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Conflict, Invalid
from server.core.events import EventHub
from server.files import service as files
from server.files.events import ChangedPath, FilesChanged
from server.files.paths import resolve
from server.files.watch import FileWatchers
from server.lsp.models import (
    EditsApplyRequest,
    EditsPreview,
    EditsPreviewRequest,
    EditsResult,
    FileEdited,
    FileEdits,
    FileEditsPreview,
    TextEdit,
)
from server.lsp.textedits import BadEdit, apply_edits, changed_lines
from server.search.models import FileSkipped, LineChange


def _confine(root: str, targets: list[FileEdits]) -> None:
    seen = set()
    for target in targets:
        real = resolve(root, target.path)
        if real in seen:
            raise Invalid(f"{target.path} is listed twice: give all of a file's edits at once")
        seen.add(real)


def _read(root: str, rel: str) -> tuple[str, str | None, str]:
    """(text, encoding, etag) of a text file of the project."""
    path = resolve(root, rel)
    if not path.is_file():
        raise Invalid(f"no such file: {rel}", code=ErrorCode.NOT_FOUND)
    data = path.read_bytes()
    text, encoding = files.decode(data)
    if text is None:
        raise Invalid("a binary file is not edited", code=ErrorCode.BINARY)
    return text, encoding, files.etag_of(data)


def _edited(text: str, target: FileEdits) -> tuple[str, list[dict]]:
    try:
        return apply_edits(text, [edit.model_dump() for edit in target.edits])
    except BadEdit as exc:
        raise Invalid(f"the edits do not fit the file: {exc}", code=ErrorCode.BAD_EDIT) from exc


def _skipped(path: str, exc: AppError | OSError) -> FileSkipped:
    if isinstance(exc, AppError):
        return FileSkipped(path=path, detail=exc.detail, code=exc.code)
    return FileSkipped(path=path, detail=exc.strerror or str(exc), code=ErrorCode.IO)


def _preview(root: str, request: EditsPreviewRequest) -> EditsPreview:
    _confine(root, list(request.files))
    result = EditsPreview(files=[], skipped=[])
    for target in request.files:
        try:
            text, _, etag = _read(root, target.path)
            after, _ = _edited(text, target)
        except (AppError, OSError) as exc:
            result.skipped.append(_skipped(target.path, exc))
            continue
        changes = [LineChange(line=n, before=b, after=a) for n, b, a in changed_lines(text, after)]
        result.files.append(FileEditsPreview(path=target.path, etag=etag, changes=changes))
    return result


def _apply(root: str, request: EditsApplyRequest) -> EditsResult:
    _confine(root, list(request.files))
    planned = []
    skipped = []
    for target in request.files:
        try:
            text, encoding, etag = _read(root, target.path)
            if etag != target.etag:
                raise Conflict("the file changed since the preview", code=ErrorCode.CHANGED)
            after, undo = _edited(text, target)
        except (AppError, OSError) as exc:
            skipped.append(_skipped(target.path, exc))
            continue
        planned.append((target, after, encoding, undo))
    if skipped:  # all or nothing: a half-renamed name breaks the code that uses it
        return EditsResult(applied=[], skipped=skipped)
    result = EditsResult(applied=[], skipped=[])
    for target, after, encoding, undo in planned:
        try:
            saved = files.save_file(root, target.path, after, target.etag, encoding)
        except (AppError, OSError) as exc:
            result.skipped.append(_skipped(target.path, exc))
        else:
            result.applied.append(FileEdited(path=saved.path, etag=saved.etag,
                                             undo=[TextEdit.model_validate(e) for e in undo]))
    return result


async def preview_edits(root: str, request: EditsPreviewRequest) -> EditsPreview:
    return await to_thread.run_sync(_preview, root, request)


async def apply_edits_to_files(root: str, project_id: str, request: EditsApplyRequest, hub: EventHub,
                               watchers: FileWatchers) -> EditsResult:
    """Every tab hears of every written file, the asking one too (no ``client``)."""
    result = await to_thread.run_sync(_apply, root, request)
    for applied in result.applied:
        watchers.note_write(resolve(root, applied.path))
    if result.applied:
        changes: list[ChangedPath] = [{"kind": "modified", "path": f.path, "etag": f.etag}
                                     for f in result.applied]
        hub.emit(project_id, FilesChanged(changes=changes))
    return result

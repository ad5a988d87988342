"""Search (a stream of matches, capped) and replace (a preview, then an apply checked by ETag)."""

import re
from collections.abc import AsyncIterator, Callable, Iterator

from anyio import to_thread
from pydantic_core import to_json

from server.core.errors import AppError, Conflict, Invalid
from server.core.events import EventHub
from server.files import service as files
from server.files.watch import FileWatchers
from server.search.grep import grep_batches
from server.search.models import (
    FilePreview,
    FileReplaced,
    FileSkipped,
    LineChange,
    ReplaceApply,
    ReplacePreview,
    ReplaceRequest,
    ReplaceResult,
    SearchEnd,
    SearchQuery,
)
from server.search.pattern import compile_query, grep_args, replacer

MAX_MATCHES = 2000
MAX_PREVIEW_FILES = 500
PREVIEW_BEFORE = 40
PREVIEW_CHARS = 200


# The stream's lines are written straight from plain values: building a SearchMatch per match
# cost as much CPU as the rest of the search (tests check every line is a valid SearchMatch).
def _matches_on(path: str, number: int, text: str, pattern: re.Pattern[str]) -> Iterator[bytes]:
    """The line's matches as ``SearchMatch`` JSON."""
    for match in pattern.finditer(text):
        start, end = match.span()
        if end == start:
            continue  # an empty match (``x*``) says nothing
        shown = max(0, start - PREVIEW_BEFORE)
        yield to_json({
            "kind": "match", "path": path, "line": number, "column": start + 1, "length": end - start,
            "preview": text[shown : shown + PREVIEW_CHARS], "preview_start": shown,
        })


def parse_batch(batch: list[bytes], pattern: re.Pattern[str]) -> list[bytes]:
    """``path\\0line\\0text`` lines (``git grep -z -n``) → the matches on them, as JSON. One
    decode for the whole batch: ``\\n`` and ``\\0`` never occur inside a UTF-8 sequence."""
    found: list[bytes] = []
    for line in b"\n".join(batch).decode(errors="replace").split("\n"):
        parts = line.split("\0", 2)
        if len(parts) == 3 and parts[1].isdigit():  # else the rest of a file name with a line break
            found.extend(_matches_on(parts[0], int(parts[1]), parts[2], pattern))
    return found


async def search(root: str, query: SearchQuery) -> AsyncIterator[bytes]:
    """NDJSON lines: ``SearchMatch`` objects, then one ``SearchEnd``; at most MAX_MATCHES.
    Each read of Git's output becomes one chunk of the response."""
    pattern = compile_query(query)
    count, truncated = 0, False
    async for batch in grep_batches(root, ["-n", "-z", *grep_args(query)]):
        found = parse_batch(batch, pattern)
        if count + len(found) > MAX_MATCHES:
            found, truncated = found[: MAX_MATCHES - count], True
        count += len(found)
        if found:
            yield b"\n".join(found) + b"\n"
        if truncated:
            break
    yield SearchEnd(count=count, truncated=truncated).model_dump_json().encode() + b"\n"


def check_query(query: SearchQuery) -> SearchQuery:
    """Refuses a bad pattern before the response starts (a stream cannot turn into a 422)."""
    compile_query(query)
    return query


async def _matching_files(root: str, query: SearchQuery) -> list[str]:
    found: list[str] = []
    async for batch in grep_batches(root, ["-l", "-z", *grep_args(query)]):
        found.extend(p.decode(errors="replace") for raw in batch for p in raw.split(b"\0") if p)
    return found


Replace = Callable[[re.Match[str]], str]


def substitute(text: str, pattern: re.Pattern[str], replace: Replace) -> tuple[str, list[LineChange], int]:
    """Replace line by line (as the search matched), keeping every line ending as it was."""
    out, changes, count = [], [], 0
    for number, line in enumerate(text.split("\n"), start=1):
        body = line.removesuffix("\r")
        after, found = pattern.subn(replace, body)
        if found and after != body:
            changes.append(LineChange(line=number, before=body, after=after))
            count += found
        out.append(after + line[len(body):])
    return "\n".join(out), changes, count


def _read_text(root: str, rel: str) -> tuple[str, str | None, str]:
    """(text, encoding, etag) of a text file in the project."""
    data = files.resolve(root, rel).read_bytes()
    text, encoding = files.decode(data)
    if text is None:
        raise Invalid("a binary file is not replaced in", code="binary")
    return text, encoding, files.etag_of(data)


def _preview_file(
    root: str, rel: str, pattern: re.Pattern[str], request: ReplaceRequest,
) -> FilePreview | None:
    try:
        text, _, etag = _read_text(root, rel)
    except (OSError, AppError):
        return None
    _, changes, count = substitute(text, pattern, replacer(request, request.replacement))
    return FilePreview(path=rel, etag=etag, count=count, changes=changes) if changes else None


async def preview_replace(root: str, request: ReplaceRequest) -> ReplacePreview:
    pattern = compile_query(request)
    paths = request.paths or await _matching_files(root, request)
    truncated = len(paths) > MAX_PREVIEW_FILES
    previews = []
    for rel in paths[:MAX_PREVIEW_FILES]:
        preview = await to_thread.run_sync(_preview_file, root, rel, pattern, request)
        if preview is not None:
            previews.append(preview)
    return ReplacePreview(files=previews, truncated=truncated)


def _replace_in(root: str, rel: str, etag: str, pattern: re.Pattern[str], replace: Replace) -> FileReplaced:
    text, encoding, current = _read_text(root, rel)
    if current != etag:
        raise Conflict("the file changed since the preview", code="changed")
    new_text, _, count = substitute(text, pattern, replace)
    # save_file checks the ETag again under its lock: nothing written in between is overwritten.
    saved = files.save_file(root, rel, new_text, etag, encoding)
    return FileReplaced(path=saved.path, etag=saved.etag, count=count)


def _apply_all(root: str, request: ReplaceApply) -> ReplaceResult:
    pattern = compile_query(request)
    replace = replacer(request, request.replacement)
    result = ReplaceResult(replaced=[], skipped=[])
    for target in request.files:
        try:
            result.replaced.append(_replace_in(root, target.path, target.etag, pattern, replace))
        except AppError as exc:
            result.skipped.append(FileSkipped(path=target.path, detail=exc.detail, code=exc.code))
        except OSError as exc:
            result.skipped.append(FileSkipped(path=target.path, detail=exc.strerror or str(exc), code="io"))
    return result


async def apply_replace(root: str, project_id: str, request: ReplaceApply, hub: EventHub,
                        watchers: FileWatchers) -> ReplaceResult:
    """Replace in the previewed files whose ETag still holds. Every tab hears of every changed
    file, the asking one too (no ``client``): its open editors reload as from any other change."""
    result = await to_thread.run_sync(_apply_all, root, request)
    for replaced in result.replaced:
        watchers.note_write(files.resolve(root, replaced.path))
    if result.replaced:
        changes = [{"kind": "modified", "path": f.path, "etag": f.etag} for f in result.replaced]
        hub.publish(project_id, "files", "changed", {"changes": changes, "client": None})
    return result

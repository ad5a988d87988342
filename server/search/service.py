"""Search (a stream of matches, capped) and replace (a preview, then an apply checked by ETag).

``git grep`` finds the candidate lines (``server/search/grep.py``); a worker process places the
matches and makes the replacements on a CPU-time budget (``server/search/engine.py``), so no
pattern can stall the server: one that takes too long is a ``422 regex_too_slow``.
"""

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from anyio import to_thread
from pydantic_core import to_json

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Conflict, Invalid
from server.core.events import EventHub
from server.files import service as files
from server.files.events import ChangedPath, FilesChanged
from server.files.watch import FileWatchers
from server.search.engine import MatchWorker, Refused
from server.search.grep import grep_batches
from server.search.matching import matches_in
from server.search.models import (
    FilePreview,
    FileReplaced,
    FileSkipped,
    FileTarget,
    LineChange,
    ReplaceApply,
    ReplacePreview,
    ReplaceRequest,
    ReplaceResult,
    SearchEnd,
    SearchError,
    SearchQuery,
)
from server.search.pattern import as_query, compile_query, grep_args

MAX_MATCHES = 2000
MAX_PREVIEW_FILES = 500
# A plain-text search is matched in this process while its worst case stays this small (each
# character of the lines git found against each of the query's, ≈ 50 ms); past it, and for every
# regular expression, in the worker (server/search/engine.py), which costs ~30 ms of CPU to start.
IN_PROCESS_STEPS = 20_000_000


async def _chained(first: list[bytes], rest: AsyncIterator[list[bytes]]) -> AsyncIterator[list[bytes]]:
    yield first
    async for batch in rest:
        yield batch


async def _found(root: str, query: SearchQuery) -> AsyncGenerator[list[bytes]]:
    """The matches' JSON lines, a list per read of Git's output (up to MAX_MATCHES + 1). The
    worker starts with Git's first lines it must match: a search that finds nothing costs none."""
    async with contextlib.aclosing(grep_batches(root, ["-n", "-z", *grep_args(query)])) as batches:
        pattern, steps = compile_query(query), 0 if query.regex else IN_PROCESS_STEPS
        async for batch in batches:
            steps -= len(query.q) * sum(map(len, batch))
            if steps <= 0:
                break
            yield matches_in(batch, pattern, MAX_MATCHES + 1, to_json)
        else:
            return  # Git is done, and all it found was matched here
        async with MatchWorker.started(as_query(query), "search", limit=MAX_MATCHES + 1) as worker:
            found_lines = worker.search(_chained(batch, batches), MAX_MATCHES + 1)
            async with contextlib.aclosing(found_lines):
                async for found in found_lines:
                    yield found


async def _search_chunks(root: str, query: SearchQuery) -> AsyncGenerator[bytes]:
    """NDJSON lines: ``SearchMatch`` objects, then one ``SearchEnd``; at most MAX_MATCHES.
    Each read of Git's output becomes one chunk."""
    count, truncated = 0, False
    async with contextlib.aclosing(_found(root, query)) as found_lines:
        async for found in found_lines:
            if count + len(found) > MAX_MATCHES:
                found, truncated = found[: MAX_MATCHES - count], True
            count += len(found)
            if found:
                yield b"\n".join(found) + b"\n"
            if truncated:
                break
    yield SearchEnd(count=count, truncated=truncated).model_dump_json().encode() + b"\n"


async def search(root: str, query: SearchQuery) -> AsyncIterator[bytes]:
    """The response body of a search, begun: what fails before it is raised here, to be an HTTP
    error answer. A regular expression's answer is held whole (≤ MAX_MATCHES lines), so a
    pattern git or the worker gives up on is always a 422; plain text streams as found."""
    compile_query(query)
    chunks = _search_chunks(root, query)
    if query.regex:
        whole = [chunk async for chunk in chunks]
        return _replay(whole)
    first = await anext(chunks)
    return _continued(first, chunks)


async def _replay(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def _continued(first: bytes, rest: AsyncGenerator[bytes]) -> AsyncIterator[bytes]:
    """The stream from its first chunk on; a failure after it ends the stream with a
    ``SearchError`` line (the status line has gone out)."""
    yield first
    async with contextlib.aclosing(rest):
        try:
            async for chunk in rest:
                yield chunk
        except AppError as exc:
            yield SearchError(detail=exc.detail, code=exc.code).model_dump_json().encode() + b"\n"


async def _matching_files(root: str, query: SearchQuery) -> list[str]:
    found: list[str] = []
    async for batch in grep_batches(root, ["-l", "-z", *grep_args(query)]):
        found.extend(p.decode(errors="replace") for raw in batch for p in raw.split(b"\0") if p)
    return found


def _read_text(root: str, rel: str) -> tuple[str, str | None, str]:
    """(text, encoding, etag) of a text file in the project."""
    data = files.resolve(root, rel).read_bytes()
    text, encoding = files.decode(data)
    if text is None:
        raise Invalid("a binary file is not replaced in", code=ErrorCode.BINARY)
    return text, encoding, files.etag_of(data)


async def preview_replace(root: str, request: ReplaceRequest) -> ReplacePreview:
    """What the replace would change in the files that match (or the given ones)."""
    compile_query(request)
    async with MatchWorker.started(as_query(request), "preview", replacement=request.replacement) as worker:
        paths = request.paths or await _matching_files(root, request)
        previews = []
        for rel in paths[:MAX_PREVIEW_FILES]:
            try:
                text, _, etag = await to_thread.run_sync(_read_text, root, rel)
            except (OSError, AppError):
                continue
            done = await worker.substitute(text)
            if done["changes"]:
                changes = [LineChange(line=n, before=b, after=a) for n, b, a in done["changes"]]
                previews.append(FilePreview(path=rel, etag=etag, count=done["count"], changes=changes))
    return ReplacePreview(files=previews, truncated=len(paths) > MAX_PREVIEW_FILES)


@dataclass
class _Planned:
    """A file's new text, made and not yet written."""

    path: str
    etag: str
    text: str
    encoding: str | None
    count: int


def _current_text(root: str, target: FileTarget) -> tuple[str, str | None]:
    text, encoding, current = _read_text(root, target.path)
    if current != target.etag:
        raise Conflict("the file changed since the preview", code=ErrorCode.CHANGED)
    return text, encoding


def _skipped(path: str, exc: AppError | OSError) -> FileSkipped:
    if isinstance(exc, AppError):
        return FileSkipped(path=path, detail=exc.detail, code=exc.code)
    return FileSkipped(path=path, detail=exc.strerror or str(exc), code=ErrorCode.IO)


async def _plan(root: str, request: ReplaceApply, worker: MatchWorker) -> list[_Planned | FileSkipped]:
    """Every file's new text, in the order asked; a file that cannot be replaced in is skipped."""
    outcomes: list[_Planned | FileSkipped] = []
    for target in request.files:
        try:
            text, encoding = await to_thread.run_sync(_current_text, root, target)
        except (AppError, OSError) as exc:
            outcomes.append(_skipped(target.path, exc))
            continue
        try:
            done = await worker.substitute(text)
        except Refused as exc:  # this file's trouble; a worker out of time ends the whole apply
            outcomes.append(_skipped(target.path, exc))
            continue
        outcomes.append(_Planned(target.path, target.etag, done["text"], encoding, done["count"]))
    return outcomes


def _write_all(root: str, outcomes: list[_Planned | FileSkipped]) -> ReplaceResult:
    result = ReplaceResult(replaced=[], skipped=[])
    for item in outcomes:
        if isinstance(item, FileSkipped):
            result.skipped.append(item)
            continue
        try:
            # save_file checks the ETag again under its lock: nothing written since is overwritten.
            saved = files.save_file(root, item.path, item.text, item.etag, item.encoding)
        except (AppError, OSError) as exc:
            result.skipped.append(_skipped(item.path, exc))
        else:
            result.replaced.append(FileReplaced(path=saved.path, etag=saved.etag, count=item.count))
    return result


async def apply_replace(root: str, project_id: str, request: ReplaceApply, hub: EventHub,
                        watchers: FileWatchers) -> ReplaceResult:
    """Replace in the previewed files whose ETag still holds. Every new text is made before the
    first is written, so a pattern too slow for them changes no file. Every tab hears of every
    changed file, the asking one too (no ``client``): its open editors reload as from any other
    change."""
    compile_query(request)
    async with MatchWorker.started(as_query(request), "apply", replacement=request.replacement) as worker:
        outcomes = await _plan(root, request, worker)
    result = await to_thread.run_sync(_write_all, root, outcomes)
    for replaced in result.replaced:
        watchers.note_write(files.resolve(root, replaced.path))
    if result.replaced:
        changes: list[ChangedPath] = [{"kind": "modified", "path": f.path, "etag": f.etag}
                                     for f in result.replaced]
        hub.emit(project_id, FilesChanged(changes=changes))
    return result

"""The matching itself: compile a query, place its matches on ``git grep``'s lines, replace line
by line.

Only the standard library (and ``server.core.errors``): the matching runs in a worker process
started without the server's packages (``server/search/worker.py``), so a regular expression
that backtracks for ever never holds the server's GIL.
"""

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid

PREVIEW_BEFORE = 40
PREVIEW_CHARS = 200
_DOLLAR_GROUP = re.compile(r"\$(\d+|&)")

Replace = Callable[[re.Match[str]], str]
Encode = Callable[[dict[str, Any]], bytes]
Change = tuple[int, str, str]  # a changed line: its number, before, after


class Query(NamedTuple):
    """What the worker needs of a ``SearchQuery``."""

    q: str
    regex: bool
    case: bool
    word: bool


def compile_pattern(query: Query) -> re.Pattern[str]:
    """Python's pattern for the query; a plain query is matched literally."""
    body = query.q if query.regex else re.escape(query.q)
    if query.word:
        body = rf"(?<!\w)(?:{body})(?!\w)"
    try:
        return re.compile(body, 0 if query.case else re.IGNORECASE)
    except re.error as exc:
        raise Invalid(f"not a valid regular expression: {exc}", code=ErrorCode.BAD_REGEX) from exc


def replacer(query: Query, replacement: str) -> Replace:
    """Plain text replaces literally; a regex replacement may use ``$1``/``\\1`` and ``$&``."""
    if not query.regex:
        return lambda _match: replacement
    template = _DOLLAR_GROUP.sub(lambda m: r"\g<0>" if m[1] == "&" else rf"\g<{m[1]}>", replacement)

    def expand(match: re.Match[str]) -> str:
        try:
            return match.expand(template)
        except (re.error, IndexError) as exc:
            raise Invalid(f"bad replacement: {exc}", code=ErrorCode.BAD_REPLACEMENT) from exc

    return expand


def to_json(value: dict[str, Any]) -> bytes:
    """Compact JSON, as pydantic writes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _matches_on(
    path: str, number: int, text: str, pattern: re.Pattern[str], encode: Encode,
) -> Iterator[bytes]:
    """The line's matches as ``SearchMatch`` JSON (written from plain values: a model per
    match cost as much CPU as the rest of the search)."""
    for match in pattern.finditer(text):
        start, end = match.span()
        if end == start:
            continue  # an empty match (``x*``) says nothing
        shown = max(0, start - PREVIEW_BEFORE)
        yield encode({
            "kind": "match", "path": path, "line": number, "column": start + 1, "length": end - start,
            "preview": text[shown : shown + PREVIEW_CHARS], "preview_start": shown,
        })


def matches_in(
    lines: list[bytes], pattern: re.Pattern[str], limit: int, encode: Encode = to_json,
) -> list[bytes]:
    """``path\\0line\\0text`` lines (``git grep -z -n``) → at most ``limit`` matches on them, as
    JSON. One decode for all: ``\\n`` and ``\\0`` never occur inside a UTF-8 sequence."""
    found: list[bytes] = []
    for line in b"\n".join(lines).decode(errors="replace").split("\n"):
        parts = line.split("\0", 2)
        if len(parts) == 3 and parts[1].isdigit():  # else the rest of a file name with a line break
            for match in _matches_on(parts[0], int(parts[1]), parts[2], pattern, encode):
                found.append(match)
                if len(found) >= limit:
                    return found
    return found


def substitute(text: str, pattern: re.Pattern[str], replace: Replace) -> tuple[str, list[Change], int]:
    """Replace line by line (as the search matched), keeping every line ending as it was: the
    new text, the changed lines as ``(number, before, after)`` and the number of replacements."""
    out, changes, count = [], [], 0
    for number, line in enumerate(text.split("\n"), start=1):
        body = line.removesuffix("\r")
        after, found = pattern.subn(replace, body)
        if found and after != body:
            changes.append((number, body, after))
            count += found
        out.append(after + line[len(body):])
    return "\n".join(out), changes, count

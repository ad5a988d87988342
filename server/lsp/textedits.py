"""Text edits in the language server protocol's shape, on plain strings.

Positions are ``{"line", "character"}``, 0-based, with characters counted in UTF-16 code units
(the protocol's default, and Monaco's columns). Used by the language server's plugin
(``server/lsp/plugin.py``) to turn a formatter's output into small edits, and by the server to
apply a rename's edits to files that no editor has open (``server/lsp/edits.py``). No imports of
the server: the plugin runs inside the language server's process.
"""

import bisect
import difflib
import itertools
import re
from typing import Any

Edit = dict[str, Any]
# What the protocol counts as a line end.
LINE_END = re.compile(r"\r\n|\r|\n")


class BadEdit(ValueError):
    """An edit that does not fit the text (a range past its end, or edits that overlap)."""


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def index_in_line(line: str, character: int) -> int:
    """The string index of a UTF-16 column in ``line``; a column past the end is the end."""
    if line.isascii():
        return min(character, len(line))
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def line_starts(text: str) -> list[int]:
    """The index at which each line of ``text`` starts (a final line end opens an empty line)."""
    return [0, *(match.end() for match in LINE_END.finditer(text))]


def _line_text(text: str, starts: list[int], line: int) -> str:
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    return LINE_END.sub("", text[starts[line]:end])


def offset_of(text: str, starts: list[int], position: dict[str, int]) -> int:
    """The string index of an edit's position; a position past the last line is refused, as the
    edit was made for another text."""
    line, character = position["line"], position["character"]
    if line >= len(starts):
        if line == len(starts) and character == 0 and text.endswith(("\n", "\r")):
            return len(text)
        raise BadEdit(f"line {line + 1} is past the end of the file ({len(starts)} lines)")
    return starts[line] + index_in_line(_line_text(text, starts, line), character)


def position_at(text: str, starts: list[int], offset: int) -> dict[str, int]:
    line = max(0, bisect.bisect_right(starts, offset) - 1)
    return {"line": line, "character": utf16_length(text[starts[line]:offset])}


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, list[Edit]]:
    """``text`` with ``edits`` applied (all made against ``text``, as the protocol has them), and
    the edits that bring it back (against the new text)."""
    starts = line_starts(text)
    spans = sorted(
        ((offset_of(text, starts, e["range"]["start"]), offset_of(text, starts, e["range"]["end"]),
          str(e["newText"])) for e in edits),
        key=lambda span: (span[0], span[1]),
    )
    pieces: list[str] = []
    placed: list[tuple[int, int, str]] = []  # (start, end) in the new text, and the old text there
    done = 0
    length = 0
    for start, end, new in spans:
        if end < start:
            raise BadEdit("an edit ends before it starts")
        if start < done:
            raise BadEdit("two edits overlap")
        pieces.append(text[done:start])
        length += start - done
        placed.append((length, length + len(new), text[start:end]))
        pieces.append(new)
        length += len(new)
        done = end
    pieces.append(text[done:])
    result = "".join(pieces)
    new_starts = line_starts(result)
    undo = [{"range": {"start": position_at(result, new_starts, start),
                       "end": position_at(result, new_starts, end)}, "newText": old}
            for start, end, old in placed]
    return result, undo


def changed_lines(before: str, after: str, limit: int = 200) -> list[tuple[int, str, str]]:
    """``(line, before, after)`` for each changed stretch of lines (1-based line of ``before``;
    several lines joined with a line end), at most ``limit``."""
    old, new = before.splitlines(), after.splitlines()
    found: list[tuple[int, str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            found.extend((i1 + k + 1, old[i1 + k], new[j1 + k]) for k in range(i2 - i1))
        else:
            found.append((i1 + 1, "\n".join(old[i1:i2]), "\n".join(new[j1:j2])))
        if len(found) >= limit:
            return found[:limit]
    return found


def diff_edits(before: str, after: str) -> list[Edit]:
    """Edits, whole lines each, that turn ``before`` into ``after``: what a formatter changed, so
    an editor keeps its cursor, markers and folds on the lines it did not touch."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    starts = line_starts(before)
    offsets = [0, *itertools.accumulate(len(line) for line in old)]
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        start = position_at(before, starts, offsets[i1])
        end = position_at(before, starts, offsets[i2])
        edits.append({"range": {"start": start, "end": end}, "newText": "".join(new[j1:j2])})
    return edits

"""Writing the ``[[budget]]`` tables of ``mnnwb.toml`` back into the file's own text.

The budgets form sends every budget whole, with the keys it does not know as it read them. Only
the lines of keys whose value changed are rewritten; comments, other tables and unknown keys stay
as written. The new text is parsed again before it is kept: unless it reads as the old file with
exactly the new budgets, nothing is written and the file is left to be edited as text.
"""

import json
import math
import re
import tomllib
from typing import Any

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid

HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")
BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_value(value: Any) -> str:
    """One value in TOML's inline syntax."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Invalid(f"{value} is not a number a budget can hold", code=ErrorCode.BAD_BUDGETS)
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise Invalid(f"a budget cannot hold {type(value).__name__} values", code=ErrorCode.BAD_BUDGETS)


def toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """Where each ``[[budget]]`` table (with its ``[budget.x]`` sub-tables) starts and ends."""
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    for number, line in enumerate(lines):
        header = HEADER.match(line)
        if not header:
            continue
        name = header.group(1)
        if start is not None and not name.startswith("budget."):
            blocks.append((start, number))
            start = None
        if line.strip().startswith("[[") and name == "budget":
            if start is not None:
                blocks.append((start, number))
            start = number
    if start is not None:
        blocks.append((start, len(lines)))
    return blocks


def _patch_block(block: list[str], old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The block's lines with the keys whose value changed set, and the keys left out removed."""
    # Keys of the table itself: those before its first sub-table (`[budget.input_shapes]`).
    own = next((i for i, line in enumerate(block) if i and HEADER.match(line)), len(block))
    key_rows = {m.group(1): i for i, line in enumerate(block[:own]) if (m := KEY_LINE.match(line))}
    out = list(block)
    for key, value in new.items():
        if key in old and old[key] == value:
            continue
        line = f"{toml_key(key)} = {toml_value(value)}"
        if key in key_rows:
            out[key_rows[key]] = line
        else:
            last = max([0, *key_rows.values()])
            out.insert(last + 1, line)
            key_rows = {k: (i + 1 if i > last else i) for k, i in key_rows.items()} | {key: last + 1}
    gone = {key_rows[key] for key in old if key not in new and key in key_rows}
    return [line for i, line in enumerate(out) if i not in gone]


def _rewrite_block(block: list[str], old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The block patched line by line; written anew when that cannot say it (a changed
    sub-table), keeping the blank lines that part it from the next table."""
    patched = _patch_block(block, old, new)
    try:
        if tomllib.loads("\n".join(patched))["budget"][0] == new:
            return patched
    except (tomllib.TOMLDecodeError, KeyError, IndexError):
        pass
    blank = len(block) - len("\n".join(block).rstrip("\n ").split("\n"))
    return _new_block(new) + [""] * blank


def _new_block(budget: dict[str, Any]) -> list[str]:
    return ["[[budget]]", *(f"{toml_key(k)} = {toml_value(v)}" for k, v in budget.items())]


def _pairs(old: list[dict[str, Any]], budgets: list[dict[str, Any]]) -> list[int | None]:
    """Which table of the file each budget edits, in the file's order: the next one of the same
    model, else the next one when no later budget claims its model (a model picked anew);
    ``None`` for a budget that is new."""
    pairs: list[int | None] = []
    after = 0
    for number, budget in enumerate(budgets):
        same = (k for k in range(after, len(old)) if old[k].get("model") == budget.get("model"))
        found = next(same, None)
        later = {b.get("model") for b in budgets[number + 1:]}
        if found is None and after < len(old) and old[after].get("model") not in later:
            found = after
        pairs.append(found)
        if found is not None:
            after = found + 1
    return pairs


def _with_blank(out: list[str], block: list[str]) -> None:
    if out and out[-1].strip():
        out.append("")
    out.extend(block)


def write_budgets(text: str, budgets: list[dict[str, Any]]) -> str:
    """``text`` with its budgets replaced by ``budgets``, everything else as it was."""
    data = tomllib.loads(text)
    old = data.get("budget", [])
    lines = text.splitlines()
    blocks = _blocks(lines)
    if not isinstance(old, list) or len(blocks) != len(old):
        raise Invalid(_NOT_EDITABLE, code=ErrorCode.BUDGETS_NOT_EDITABLE)
    # The text around the tables: before the first, between each and the next, after the last.
    edges = [0, *(i for block in blocks for i in block), len(lines)]
    gaps = [lines[edges[2 * m]:edges[2 * m + 1]] for m in range(len(blocks) + 1)]
    out = list(gaps[0])
    gap = 1  # the next gap to write; a new budget goes right after the table before it
    for budget, table in zip(budgets, _pairs(old, budgets), strict=True):
        if table is None:
            _with_blank(out, [*_new_block(budget), ""])
            continue
        for between in gaps[gap:table + 1]:
            out.extend(between)
        start, end = blocks[table]
        _with_blank(out, _rewrite_block(lines[start:end], old[table], budget))
        gap = table + 1
    for between in gaps[gap:]:
        out.extend(between)
    joined = "\n".join(out).rstrip("\n")
    written = joined + "\n" if joined.strip() else ""
    _verify(written, data, budgets)
    return written


_NOT_EDITABLE = (
    "mnnwb.toml is written in a way the form cannot edit without changing more than its budgets: "
    "edit it as text"
)


def _verify(written: str, before: dict[str, Any], budgets: list[dict[str, Any]]) -> None:
    expected = {k: v for k, v in before.items() if k != "budget"}
    if budgets:
        expected["budget"] = budgets
    try:
        got = tomllib.loads(written)
    except tomllib.TOMLDecodeError:
        raise Invalid(_NOT_EDITABLE, code=ErrorCode.BUDGETS_NOT_EDITABLE) from None
    if got != expected:
        raise Invalid(_NOT_EDITABLE, code=ErrorCode.BUDGETS_NOT_EDITABLE)

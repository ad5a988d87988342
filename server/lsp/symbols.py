"""The project's symbols for "go to symbol in workspace" and import quick fixes.

Runs inside the language server's process. Every Python file of the project (not in hidden
folders, ``__pycache__``, ``node_modules`` or a virtual environment) is parsed with ``ast`` and
its module-level functions, classes and names and its classes' methods and attributes are kept,
re-read only when a file's size or modification time changes. An open document is read from the
editor's text instead of the disk.
"""

import ast
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from server.lsp.textedits import utf16_length

MAX_FILES = 5000
MAX_FILE_BYTES = 1024 * 1024
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages"})
# The protocol's SymbolKind numbers.
CLASS, METHOD, FUNCTION, VARIABLE, CONSTANT = 5, 6, 12, 13, 14


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: int
    path: str  # relative to the project, with forward slashes
    line: int  # 0-based
    character: int  # UTF-16 column of the name
    container: str | None

    @property
    def module(self) -> str | None:
        """The dotted module a top-level symbol is imported from, if the path makes one."""
        parts = self.path[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None


def _name_column(line: str, start: int, name: str) -> int:
    """The UTF-16 column of ``name`` at or after character ``start`` of ``line``."""
    found = re.compile(rf"\b{re.escape(name)}\b").search(line, start)
    return utf16_length(line[:found.start() if found else start])


def _targets(node: ast.stmt) -> Iterator[ast.Name]:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    for target in targets:
        if isinstance(target, ast.Name):
            yield target
        elif isinstance(target, ast.Tuple):
            yield from (item for item in target.elts if isinstance(item, ast.Name))


def symbols_of(text: str, path: str) -> list[Symbol]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = text.splitlines()

    def column(node: ast.stmt | ast.expr, name: str) -> tuple[int, int]:
        line = lines[node.lineno - 1] if node.lineno - 1 < len(lines) else ""
        start = len(line.encode()[:node.col_offset].decode(errors="ignore"))  # col_offset: bytes
        return node.lineno - 1, _name_column(line, start, name)

    found: list[Symbol] = []

    def visit(body: list[ast.stmt], container: str | None) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                found.append(Symbol(node.name, CLASS, path, *column(node, node.name), container))
                if container is None:
                    visit(node.body, node.name)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                kind = METHOD if container else FUNCTION
                found.append(Symbol(node.name, kind, path, *column(node, node.name), container))
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                for target in _targets(node):
                    kind = CONSTANT if target.id.isupper() else VARIABLE
                    found.append(Symbol(target.id, kind, path, *column(target, target.id), container))

    visit(tree.body, None)
    return found


def python_files(root: Path) -> Iterator[Path]:
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS
                         and not (Path(folder) / d / "pyvenv.cfg").exists())
        for name in sorted(files):
            if name.endswith(".py"):
                count += 1
                if count > MAX_FILES:
                    return
                yield Path(folder) / name


class SymbolIndex:
    def __init__(self, root: str) -> None:
        self.root = Path(root)
        self._files: dict[Path, tuple[tuple[int, float], list[Symbol]]] = {}

    def _symbols(self, path: Path, open_text: Callable[[Path], str | None]) -> list[Symbol]:
        rel = path.relative_to(self.root).as_posix()
        text = open_text(path)
        if text is not None:
            return symbols_of(text, rel)
        try:
            info = path.stat()
        except OSError:
            return []
        stamp = (info.st_size, info.st_mtime)
        cached = self._files.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        if info.st_size > MAX_FILE_BYTES:
            found: list[Symbol] = []
        else:
            try:
                found = symbols_of(path.read_text(encoding="utf-8", errors="replace"), rel)
            except OSError:
                found = []
        self._files[path] = (stamp, found)
        return found

    def all(self, open_text: Callable[[Path], str | None]) -> Iterator[Symbol]:
        seen = set()
        for path in python_files(self.root):
            seen.add(path)
            yield from self._symbols(path, open_text)
        for gone in set(self._files) - seen:
            del self._files[gone]


def rank(name: str, query: str) -> int | None:
    """How well ``name`` matches ``query`` (lower is better), or None: the query's characters in
    order, ignoring case; an exact name first, then a prefix, then a part, then scattered."""
    if not query:
        return 3
    lower, wanted = name.lower(), query.lower()
    if lower == wanted:
        return 0
    if lower.startswith(wanted):
        return 1
    if wanted in lower:
        return 2
    position = 0
    for char in wanted:
        position = lower.find(char, position) + 1
        if position == 0:
            return None
    return 3


def search(symbols: Iterator[Symbol], query: str, limit: int) -> list[Symbol]:
    ranked = [(r, len(s.name), s.name, s.path, s.line, s) for s in symbols
              if (r := rank(s.name, query.strip())) is not None]
    ranked.sort(key=lambda item: item[:5])
    return [item[-1] for item in ranked[:limit]]

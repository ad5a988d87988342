"""The workbench's plugin for pylsp, loaded through the ``pylsp`` entry point in ``pyproject.toml``
(docs/ide.md, "Python language features"). It runs inside the language server's process, in the
sandbox, and adds:

* ``workspace/symbol``: the project's functions, classes, methods and module-level names
  (``server/lsp/symbols.py``);
* ``mnnwb/rename`` ``{textDocument, position, newName}`` → ``{name, changes: {uri: [TextEdit]}}``:
  one edit per occurrence (Jedi's references), refused with a reason for what cannot be renamed
  (a module, a name defined outside the project, a new name that is not a Python name);
* ``mnnwb/format`` ``{textDocument, range?}`` and ``mnnwb/organizeImports`` ``{textDocument}`` →
  ``{edits, tool}`` (``server/lsp/formatting.py``), a failure as an error naming the tool;
* ``mnnwb/diagnostics`` ``{uris}`` → ``[{uri, diagnostics}]``: the linters' findings for files
  as they are on disk (or in an editor), for files no editor has open;
* quick fixes on pyflakes' diagnostics: remove an unused import, import an undefined name from
  the project module that defines it.

Nothing here imports the server beyond ``server/lsp/``'s plain modules.
"""

import ast
import keyword
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any

from pylsp import _utils, hookimpl, uris
from pylsp_jsonrpc.exceptions import JsonRpcException

from server.lsp import formatting, symbols
from server.lsp.textedits import utf16_length

log = logging.getLogger(__name__)

NAME = "mnnwb"
REQUEST_FAILED = -32803
MAX_SYMBOLS = 200
MAX_LINTED = 100
MAX_LINTED_BYTES = 1024 * 1024
UNUSED_IMPORT = re.compile(r"^'(?P<name>[^']+)' imported but unused$")
UNDEFINED_NAME = re.compile(r"^undefined name '(?P<name>[^']+)'$")
INSTALLED = frozenset({"site-packages", "dist-packages"})

Message = dict[str, Any]


def refuse(reason: str) -> JsonRpcException:
    return JsonRpcException(message=reason, code=REQUEST_FAILED)


@hookimpl
def pylsp_settings(config) -> Message:
    # interpreter: the project's, when it has its own (server/lsp/service.py sends it)
    return {"plugins": {NAME: {"enabled": True, "interpreter": None}}}


class Workbench:
    """The plugin's requests for one workspace (the project)."""

    def __init__(self, config, workspace) -> None:
        self.config = config
        self.workspace = workspace
        self.root = os.path.realpath(workspace.root_path)
        self.index = symbols.SymbolIndex(self.root)
        self._index_lock = threading.Lock()

    def methods(self) -> dict[str, Any]:
        return {
            "workspace/symbol": self.workspace_symbols,
            "mnnwb/rename": self.rename,
            "mnnwb/format": self.format,
            "mnnwb/organizeImports": self.organize_imports,
            "mnnwb/diagnostics": self.diagnostics,
        }

    @property
    def interpreter(self) -> str | None:
        value = self.config.plugin_settings(NAME).get("interpreter")
        return value if isinstance(value, str) and value else None

    def inside(self, path: str | os.PathLike[str]) -> bool:
        real = os.path.realpath(path)
        return (os.path.commonpath([self.root, real]) == self.root
                and not INSTALLED.intersection(Path(real).parts))

    def _open_text(self, path: Path) -> str | None:
        document = self.workspace.documents.get(uris.from_fs_path(str(path)))
        return getattr(document, "source", None) if document is not None else None

    def project_symbols(self) -> list[symbols.Symbol]:
        with self._index_lock:
            return list(self.index.all(self._open_text))

    def workspace_symbols(self, params: Message | None) -> Any:
        query = str((params or {}).get("query", ""))

        def work() -> list[Message]:
            found = symbols.search(iter(self.project_symbols()), query, MAX_SYMBOLS)
            return [symbol_information(self.root, symbol) for symbol in found]

        return work

    def _document(self, params: Message | None):
        uri = str(((params or {}).get("textDocument") or {}).get("uri", ""))
        if not uri.startswith("file:") or not self.inside(uris.to_fs_path(uri)):
            raise refuse("not a file of the project")
        return self.workspace.get_document(uri)

    def rename(self, params: Message | None) -> Message:
        """On the server's own thread, as every other use of Jedi (it is not thread-safe)."""
        params = params or {}
        new_name = str(params.get("newName", ""))
        if not new_name.isidentifier() or keyword.iskeyword(new_name):
            raise refuse(f"{new_name!r} is not a Python name")
        document = self._document(params)
        position = _utils.position_to_jedi_linecolumn(document, params.get("position"))
        if not position:
            raise refuse("no position to rename at")
        script = document.jedi_script()
        references = script.get_references(**position, include_builtins=False)
        if not references:
            raise refuse("there is no name here that can be renamed")
        old = references[0].name
        for definition in script.goto(**position, follow_imports=True, follow_builtin_imports=True):
            path = definition.module_path
            if definition.in_builtin_module() or path is None or not self.inside(path):
                where = path or "built in"
                raise refuse(f"{old} is defined outside the project ({where}): it cannot be renamed here")
        changes: dict[str, list[Message]] = {}
        seen = set()
        for reference in references:
            if reference.type == "module":
                raise refuse(f"{old} is a module: renaming it would rename its file, which is not done here")
            path = reference.module_path
            if path is None or not self.inside(path):
                where = path or "built in"
                raise refuse(f"{old} is defined outside the project ({where}): it cannot be renamed here")
            if reference.name != old or (path, reference.line, reference.column) in seen:
                continue
            seen.add((path, reference.line, reference.column))
            line = reference.get_line_code()
            start = utf16_length(line[:reference.column]) if line else reference.column
            edit = {"range": {"start": {"line": reference.line - 1, "character": start},
                              "end": {"line": reference.line - 1, "character": start + utf16_length(old)}},
                    "newText": new_name}
            changes.setdefault(uris.from_fs_path(str(path)), []).append(edit)
        return {"name": old, "changes": changes}

    def _tool_request(self, params: Message | None, run) -> Any:
        """Reads the document now (in order with the editor's changes), runs the tool in a
        thread of the server's pool."""
        document = self._document(params)
        text, path = document.source, os.path.relpath(document.path, self.root)

        def work() -> Message:
            try:
                edits, tool = run(text, path)
            except formatting.ToolFailed as exc:
                raise refuse(str(exc)) from exc
            return {"edits": edits, "tool": tool.label}

        return work

    def format(self, params: Message | None) -> Any:
        selection = (params or {}).get("range")
        return self._tool_request(params, lambda text, path: formatting.format_text(
            text, path, self.root, self.interpreter, selection))

    def organize_imports(self, params: Message | None) -> Any:
        return self._tool_request(params, lambda text, path: formatting.sort_imports(
            text, path, self.root, self.interpreter))

    def diagnostics(self, params: Message | None) -> Any:
        wanted = [str(u) for u in (params or {}).get("uris", [])][:MAX_LINTED]

        def work() -> list[Message]:
            lint = self.config.plugin_manager.subset_hook_caller("pylsp_lint", self.config.disabled_plugins)
            found = []
            for uri in wanted:
                path = uris.to_fs_path(uri) if uri.startswith("file:") else ""
                if not path.endswith(".py") or not self.inside(path):
                    continue
                try:
                    if os.path.getsize(path) > MAX_LINTED_BYTES:
                        continue
                except OSError:
                    found.append({"uri": uri, "diagnostics": []})  # gone: nothing to report
                    continue
                document = self.workspace.get_document(uri)
                results = lint(config=self.config, workspace=self.workspace, document=document, is_saved=True)
                found.append({"uri": uri, "diagnostics": [d for result in results for d in result or []]})
            return found

        return work


def symbol_information(root: str, symbol: symbols.Symbol) -> Message:
    position = {"line": symbol.line, "character": symbol.character}
    end = {"line": symbol.line, "character": symbol.character + utf16_length(symbol.name)}
    found: Message = {
        "name": symbol.name, "kind": symbol.kind,
        "location": {"uri": uris.from_fs_path(os.path.join(root, symbol.path)),
                     "range": {"start": position, "end": end}},
    }
    if symbol.container:
        found["containerName"] = symbol.container
    return found


_workbenches: dict[int, Workbench] = {}


def _workbench(config, workspace) -> Workbench:
    found = _workbenches.get(id(workspace))
    if found is None or found.workspace is not workspace:
        found = _workbenches[id(workspace)] = Workbench(config, workspace)
    return found


@hookimpl
def pylsp_dispatchers(config, workspace) -> dict[str, Any]:
    return _workbench(config, workspace).methods()


# Quick fixes ------------------------------------------------------------------------------------


def _import_name(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    """The name pyflakes gives an import in its messages: ``os``, ``json as j``, ``m.x as y``."""
    if isinstance(node, ast.ImportFrom):
        base = "." * node.level + (node.module or "")
        full = f"{base}.{alias.name}" if node.module else f"{base}{alias.name}"
    else:
        full = alias.name
    return f"{full} as {alias.asname}" if alias.asname else full


def _remove_import(document, tree: ast.Module, line: int, name: str) -> Message | None:
    """The edit that drops ``name`` from the import statement on ``line`` (0-based)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if not node.lineno - 1 <= line < (node.end_lineno or node.lineno):
            continue
        keep = [alias for alias in node.names if _import_name(node, alias) != name]
        if len(keep) == len(node.names):
            continue
        lines = document.lines
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        before, after = lines[first][:node.col_offset], lines[last].encode()[node.end_col_offset:].decode()
        if before.strip() or after.strip():
            return None  # shares its line with other code: left to the person
        if keep:
            node.names = keep
            text = lines[first][:node.col_offset] + ast.unparse(node) + "\n"
        else:
            text = ""
        whole_lines = {"start": {"line": first, "character": 0}, "end": {"line": last + 1, "character": 0}}
        return {"range": whole_lines, "newText": text}
    return None


def _import_line(tree: ast.Module) -> int:
    """Where a new import goes: after the module's last top-level import, else after its
    docstring, else at the top (0-based line)."""
    line = 0
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.Import | ast.ImportFrom):
            line = node.end_lineno or node.lineno
        elif index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            line = node.end_lineno or node.lineno
        else:
            break
    return line


def _action(title: str, document, edit: Message, diagnostic: Message) -> Message:
    return {"title": title, "kind": "quickfix", "diagnostics": [diagnostic],
            "edit": {"changes": {document.uri: [edit]}}}


@hookimpl
def pylsp_code_actions(config, workspace, document, range, context) -> list[Message]:
    diagnostics = [d for d in (context or {}).get("diagnostics", []) if d.get("source") == "pyflakes"]
    if not diagnostics:
        return []
    try:
        tree = ast.parse(document.source)
    except (SyntaxError, ValueError):
        return []
    actions = []
    here = os.path.relpath(os.path.realpath(document.path), os.path.realpath(workspace.root_path))
    for diagnostic in diagnostics:
        message, line = diagnostic.get("message", ""), diagnostic["range"]["start"]["line"]
        if unused := UNUSED_IMPORT.match(message):
            name = unused["name"]
            edit = _remove_import(document, tree, line, name)
            if edit:
                title = f"Remove unused import {name.split(' as ')[-1]}"
                actions.append(_action(title, document, edit, diagnostic))
        elif undefined := UNDEFINED_NAME.match(message):
            name = undefined["name"]
            at = {"line": _import_line(tree), "character": 0}
            modules = sorted({s.module for s in _workbench(config, workspace).project_symbols()
                              if s.name == name and s.container is None and s.module and s.path != here})
            for module in modules[:5]:
                edit = {"range": {"start": at, "end": at}, "newText": f"from {module} import {name}\n"}
                actions.append(_action(f"Import {name} from {module}", document, edit, diagnostic))
    return actions

"""Every error code the server answers is an ``ErrorCode`` member, and ``docs/api.md`` lists them all.

The scan reads ``server/`` as source (AST): a string literal where an error code is given — a
``code=`` keyword (also inside ``a or "x"``, ``"x" if c else "y"`` and ``.get(key, "x")``), an
error class's ``code`` default, a ``"code":`` entry of a dict literal, a value of a ``*_CODES``
table, a code given positionally (``POSITIONAL_CODE``) — fails, naming where it is.
"""

import ast
import json
from pathlib import Path

from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient

from device_bridge.errors import BridgeCode
from server.core.config import REPO_ROOT
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Invalid

SERVER = REPO_ROOT / "server"
ENUM_MODULE = SERVER / "core" / "error_codes.py"
# Codes the device agent sends and the server forwards as they are (``server/devices/bridge.py``
# ``app_error``, ``server/llm/device.py``): the file of ``device_bridge`` that raises each.
FORWARDED = {
    ErrorCode.BRIDGE_ERROR: "device_bridge/errors.py",
    ErrorCode.DEVICE_OFFLINE: "device_bridge/errors.py",
    ErrorCode.UNKNOWN_SESSION: "device_bridge/errors.py",
    ErrorCode.NO_MNN_LLM: "device_bridge/llm/worker.py",
    ErrorCode.UNSAFE_PATH: "device_bridge/agent/llm_tasks.py",
}

# Calls that take the code positionally: the argument's index.
POSITIONAL_CODE = {"_deny": 3, "Quota": 1, "ShapeError": 0, "CommandError": 0}


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(SERVER.rglob("*.py"))
            if "templates" not in path.parts and path != ENUM_MODULE]


def _literals(node: ast.expr) -> list[ast.Constant]:
    """The string literals an expression giving a code can evaluate to."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, ast.BoolOp):
        return [lit for value in node.values for lit in _literals(value)]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return [lit for arg in node.args[1:] for lit in _literals(arg)]
    return []


def _code_expressions(tree: ast.Module) -> list[ast.expr]:
    """Every expression in ``tree`` that gives an error code."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found += [kw.value for kw in node.keywords if kw.arg == "code"]
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            at = POSITIONAL_CODE.get(name)
            if at is not None and len(node.args) > at:
                found.append(node.args[at])
        elif isinstance(node, ast.ClassDef):
            found += [stmt.value for stmt in node.body if isinstance(stmt, ast.Assign | ast.AnnAssign)
                      and stmt.value is not None and _names(stmt) == ["code"]]
        elif isinstance(node, ast.Assign) and _names(node) == ["code"] and isinstance(node.value, ast.IfExp):
            found.append(node.value)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                name.endswith("_CODES") for name in _names(node)):  # a table of codes by status
            found += node.value.values
        elif isinstance(node, ast.Dict):
            found += [value for key, value in zip(node.keys, node.values, strict=True)
                      if isinstance(key, ast.Constant) and key.value == "code"]
    return found


def _names(stmt: ast.Assign | ast.AnnAssign) -> list[str]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return [target.id for target in targets if isinstance(target, ast.Name)]


def _members_used(tree: ast.Module) -> set[str]:
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "ErrorCode"}


def test_no_code_is_a_free_string() -> None:
    free = [f"{path.relative_to(REPO_ROOT)}:{lit.lineno} {lit.value!r}" for path, tree in _sources()
            for expr in _code_expressions(tree) for lit in _literals(expr)]
    assert not free, "give these codes as ErrorCode members (server/core/error_codes.py):\n" + "\n".join(free)


def test_every_error_class_default_is_a_member() -> None:
    classes = [AppError]
    while classes:
        cls = classes.pop()
        assert isinstance(cls.code, ErrorCode), f"{cls.__module__}.{cls.__name__}.code = {cls.code!r}"
        classes += cls.__subclasses__()


def test_every_member_is_used_or_forwarded() -> None:
    used = set().union(*(_members_used(tree) for _, tree in _sources()))
    assert not used - {code.name for code in ErrorCode}, "unknown members"
    unused = [code.name for code in ErrorCode if code.name not in used and code not in FORWARDED]
    assert not unused, f"no server code raises these: remove them or list them in FORWARDED: {unused}"
    for code, source in FORWARDED.items():
        text = (REPO_ROOT / source).read_text(encoding="utf-8")
        assert f'"{code.value}"' in text, f"{source} no longer sends {code.value!r}"


def test_every_bridge_code_is_a_member() -> None:
    """The device bridge cannot import the server: its codes are its own enum, each also here."""
    assert not {code.value for code in BridgeCode} - {code.value for code in ErrorCode}


def test_the_openapi_error_names_every_code(client: TestClient) -> None:
    schemas = client.app.openapi()["components"]["schemas"]
    assert schemas["Error"]["properties"]["code"] == {"$ref": "#/components/schemas/ErrorCode"}
    assert schemas["ErrorCode"]["enum"] == sorted(code.value for code in ErrorCode)


def test_every_member_has_a_meaning_and_fitting_statuses() -> None:
    for code in ErrorCode:
        assert code.meaning, code.name
        assert code.name == code.value.upper(), code.name
        assert all(400 <= status < 600 for status in code.statuses), code.name


def test_the_json_body_carries_the_plain_code() -> None:
    error = Invalid("no good", code=ErrorCode.BAD_PATH, where="x")
    response = JSONResponse(error.body(), status_code=error.status)
    assert json.loads(response.body) == {"detail": "no good", "code": "bad_path", "where": "x"}
    assert response.body == b'{"detail":"no good","code":"bad_path","where":"x"}'


def test_docs_list_every_code() -> None:
    import importlib.util

    path = REPO_ROOT / "scripts" / "error_codes_doc.py"
    spec = importlib.util.spec_from_file_location("error_codes_doc", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    current = script.section((REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    assert current == script.render(), (
        "docs/api.md's error code table is stale: run .venv/bin/python scripts/error_codes_doc.py")

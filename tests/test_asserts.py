"""Every test checks something: an AST scan of tests/ for test functions with no ``assert``, no
``pytest.raises``/``pytest.fail``/``pytest.warns``, no Playwright ``expect`` and no call of a
helper that does one of these (found across tests/, through helpers calling helpers)."""

import ast
import functools
import subprocess
import threading
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from playwright.sync_api import BrowserContext, Locator, Page
from sqlmodel import Session
from websockets.sync.client import ClientConnection

TESTS = Path(__file__).resolve().parent

# Calls that check by themselves: they raise when what they wait for or expect does not come.
CHECKING_CALLS = {"raises", "fail", "warns", "expect", "wait_until", "check_returncode", "raise_for_status",
                  "call_and_validate", "validate_response"}

# Tests that check nothing by an assert, with the reason they are tests all the same.
EXCEPTIONS: dict[str, str] = {}

# A method call counts as a helper's only if no library object the tests use has a method of
# that name: ``client.get`` is not the ``get`` of some test helper.
LIBRARY_METHODS = {
    name for kind in (TestClient, httpx.Response, Page, Locator, BrowserContext, ClientConnection, Session,
                      subprocess.Popen, threading.Thread, Path, dict, list, set, str, bytes)
    for name in dir(kind)
}


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute) and func.attr not in LIBRARY_METHODS:
                names.add(func.attr)
    return names


def _checks_itself(node: ast.AST) -> bool:
    return any(isinstance(inner, (ast.Assert, ast.Raise)) for inner in ast.walk(node))


def _functions() -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method defined in tests/, by qualified name ``path::name``."""
    found: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(f"{path.relative_to(TESTS.parent)}::{node.name}", []).append(node)
    return found


def _checking_names(functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]) -> set[str]:
    """Names of the helpers that check: they assert or raise, or call a helper that does."""
    checking = set(CHECKING_CALLS)
    calls = {key: set().union(*(_called_names(node) for node in nodes)) for key, nodes in functions.items()}
    for key, nodes in functions.items():
        if any(_checks_itself(node) for node in nodes):
            checking.add(key.split("::")[1])
    grown = True
    while grown:
        grown = False
        for key, names in calls.items():
            name = key.split("::")[1]
            if name not in checking and names & checking:
                checking.add(name)
                grown = True
    return checking


@functools.cache
def unchecked_tests() -> tuple[str, ...]:
    """The test functions of tests/ that check nothing."""
    functions = _functions()
    checking = _checking_names(functions)
    unchecked = []
    for key, nodes in functions.items():
        path, name = key.split("::")
        if not (Path(path).name.startswith("test_") and name.startswith("test_")):
            continue
        for node in nodes:
            if not _checks_itself(node) and not _called_names(node) & checking:
                unchecked.append(key)
    return tuple(sorted(unchecked))


def test_every_test_checks_something() -> None:
    unchecked = [key for key in unchecked_tests() if key not in EXCEPTIONS]
    assert unchecked == [], "tests that check nothing (assert, or list them in EXCEPTIONS with a reason)"


def test_the_exceptions_are_still_tests_that_check_nothing() -> None:
    assert set(EXCEPTIONS) <= set(unchecked_tests())


def test_the_scan_finds_a_test_without_a_check(tmp_path: Path) -> None:
    tree = ast.parse("def test_x():\n    print(1)\n\ndef test_y():\n    assert 1\n")
    checking = _checking_names({f"t::{node.name}": [node] for node in tree.body})  # type: ignore[misc]
    unchecked = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                 and not _checks_itself(node) and not _called_names(node) & checking]
    assert unchecked == ["test_x"]

"""The server's long-lived services are one typed ``Services`` on ``app.state.services``
(``server/api/services.py``), and nothing else in ``server/`` reads or writes ``app.state``."""

import ast
import dataclasses
import typing
from pathlib import Path

from fastapi.testclient import TestClient

from server.api.services import Services, services_of
from server.core.config import REPO_ROOT
from server.core.events import EventHub

SERVER = REPO_ROOT / "server"
ALLOWED = {SERVER / "api" / "services.py"}


def _is_app(node: ast.expr) -> bool:
    """``app``, ``<x>.app`` or ``scope["app"]``: what Starlette hands a route, socket or middleware."""
    if isinstance(node, ast.Name):
        return node.id == "app"
    if isinstance(node, ast.Attribute):
        return node.attr == "app"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "app"
    return False


def _state_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.relative_to(REPO_ROOT)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "state" and _is_app(node.value)]


def test_the_scan_finds_an_app_state_read() -> None:
    sample = "def f(request, scope):\n    return request.app.state.hub, scope['app'].state.x, app.state.y\n"
    tree = ast.parse(sample)
    found = [node for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr == "state" and _is_app(node.value)]
    assert len(found) == 3


def test_only_the_services_module_touches_app_state() -> None:
    uses = [use for path in sorted(SERVER.rglob("*.py")) if path not in ALLOWED for use in _state_uses(path)]
    assert uses == []


def test_every_service_has_a_real_type() -> None:
    hints = typing.get_type_hints(Services)
    assert [name for name, hint in hints.items() if hint is typing.Any or hint is object] == []
    assert {field.name for field in dataclasses.fields(Services)} == set(hints)


def test_the_lifespan_stores_the_services_and_nothing_else(client: TestClient) -> None:
    stored = dict(client.app.state._state)  # type: ignore[attr-defined]
    assert list(stored) == ["services"]
    services = services_of(client.app)
    assert isinstance(services, Services) and isinstance(services.hub, EventHub)
    for name, hint in typing.get_type_hints(Services).items():
        assert isinstance(getattr(services, name), typing.get_origin(hint) or hint), name


def _publishes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.relative_to(REPO_ROOT)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("emit", "publish") and _is_hub(node.func.value)]


def _is_hub(node: ast.expr) -> bool:
    """``hub`` or ``<x>.hub``: the event hub (a market package's ``registry.publish`` is not one)."""
    return (isinstance(node, ast.Name) and node.id == "hub") or (
        isinstance(node, ast.Attribute) and node.attr == "hub")


def test_no_route_publishes_an_event_itself() -> None:
    """Routes parse, check and call one service; the service tells the tabs."""
    routes = SERVER / "api" / "routes"
    assert _publishes(SERVER / "gitflow" / "writes.py")  # the scan sees a publishing module
    assert [use for path in sorted(routes.rglob("*.py")) for use in _publishes(path)] == []

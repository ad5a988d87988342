"""``/api/keybindings``: each person's keys for the web UI's commands (docs/ide.md, "Keyboard
shortcuts"): kept in one spelling, checked key by key, capped in size, and each person's own."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.keybindings.keys import BadKey, normalize
from server.keybindings.models import MAX_BYTES
from tests.server.team.conftest import Team, start_team, team_settings


def test_a_person_without_overrides_has_none(client: TestClient) -> None:
    assert client.get("/api/keybindings").json() == {"bindings": {}}


def test_overrides_are_kept_in_one_spelling(client: TestClient) -> None:
    body = {"bindings": {"search": ["shift+ctrl+f", "Alt+F"], "view.toggle-sidebar": [],
                         "keybindings.open": ["cmd+k cmd+s"], "terminal.toggle": ["Control+`"]}}
    answer = client.put("/api/keybindings", json=body)
    assert answer.status_code == 200, answer.text
    kept = {"search": ["Ctrl+Shift+F", "Alt+F"], "view.toggle-sidebar": [],
            "keybindings.open": ["Ctrl+K Ctrl+S"], "terminal.toggle": ["Ctrl+`"]}
    assert answer.json() == {"bindings": kept}
    assert client.get("/api/keybindings").json() == {"bindings": kept}
    # A PUT replaces the whole set: what it leaves out is back to its defaults.
    client.put("/api/keybindings", json={"bindings": {"search": ["F3"]}})
    assert client.get("/api/keybindings").json() == {"bindings": {"search": ["F3"]}}


@pytest.mark.parametrize("key", [
    "Ctrl+", "Ctrl+Hyper+A", "Ctrl+Ctrl+A", "Ctrl+K Ctrl+S Ctrl+X", "Ctrl+K  Ctrl+S", "Ctrl+Ä",
    " Ctrl+A", "Ctrl+A ", "Super+Q", "Ctrl+Shift",
])
def test_a_key_outside_the_syntax_is_refused_by_name(client: TestClient, key: str) -> None:
    client.put("/api/keybindings", json={"bindings": {"search": ["F3"]}})
    answer = client.put("/api/keybindings", json={"bindings": {"palette": ["F1"], "search": [key]}})
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "bad_key"
    assert answer.json()["command"] == "search" and answer.json()["key"] == key
    # Nothing of a refused body is kept.
    assert client.get("/api/keybindings").json() == {"bindings": {"search": ["F3"]}}


@pytest.mark.parametrize("body", [
    {},
    {"bindings": []},
    {"bindings": {"search": "Ctrl+F"}},
    {"bindings": {"": ["F3"]}},
    {"bindings": {"bad id": ["F3"]}},
    {"bindings": {"x" * 129: ["F3"]}},
    {"bindings": {"search": ["F1", "F2", "F3", "F4", "F5"]}},
    {"bindings": {"search": ["Ctrl+" + "A" * 64]}},
    {"bindings": {"search": [""]}},
])
def test_a_body_of_the_wrong_shape_is_invalid(client: TestClient, body: dict) -> None:
    answer = client.put("/api/keybindings", json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid"


def test_overrides_past_the_size_cap_are_refused(client: TestClient) -> None:
    keys = ["Ctrl+Shift+Alt+PageDown Ctrl+Shift+Alt+PageUp"] * 1 + ["Ctrl+Shift+Alt+F24 Ctrl+Shift+Alt+F23"]
    bindings = {f"feature.command-{n:03d}-{'x' * 60}": keys for n in range(600)}
    answer = client.put("/api/keybindings", json={"bindings": bindings})
    assert answer.status_code == 413, answer.text
    assert answer.json()["code"] == "too_large"
    assert str(MAX_BYTES) in answer.json()["detail"]
    assert client.get("/api/keybindings").json() == {"bindings": {}}
    # Exactly the cap is kept: ids grown one character at a time until the body weighs that much.
    key = ["Ctrl+Shift+Alt+PageDown Ctrl+Shift+Alt+PageUp"]
    ids = [f"c{n:03d}-{'x' * 7}" for n in range(999)]
    size = len(json.dumps(dict.fromkeys(ids, key), separators=(",", ":")).encode())
    ids = [f"{name}x" if n < MAX_BYTES - size else name for n, name in enumerate(ids)]
    fits = dict.fromkeys(ids, key)
    assert len(json.dumps(fits, separators=(",", ":")).encode()) == MAX_BYTES
    assert client.put("/api/keybindings", json={"bindings": fits}).status_code == 200


def test_needs_a_signed_in_caller(anon_client: TestClient) -> None:
    assert anon_client.get("/api/keybindings").status_code == 401
    put = anon_client.put("/api/keybindings", json={"bindings": {}}, headers={"X-MNNWB-CSRF": "1"})
    assert put.status_code == 401


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    yield from start_team(team_settings(tmp_path / "data"))


def test_each_member_of_a_team_has_their_own(team: Team) -> None:
    mine = {"bindings": {"search": ["Alt+S"]}}
    assert team.client.put("/api/keybindings", json=mine, headers=team.auth("editor")).status_code == 200
    assert team.client.get("/api/keybindings", headers=team.auth("editor")).json() == mine
    assert team.client.get("/api/keybindings", headers=team.auth("viewer")).json() == {"bindings": {}}
    theirs = {"bindings": {"search": ["Alt+V"]}}
    assert team.client.put("/api/keybindings", json=theirs, headers=team.auth("viewer")).status_code == 200
    assert team.client.get("/api/keybindings", headers=team.auth("editor")).json() == mine


def test_the_project_page_carries_the_callers_keys(client: TestClient, project: dict) -> None:
    client.put("/api/keybindings", json={"bindings": {"view.toggle-panel": ["Ctrl+Alt+J"]}})
    page = client.get(f"/p/{project['id']}").text
    assert '"keybindings": {"view.toggle-panel": ["Ctrl+Alt+J"]}' in page


@pytest.mark.parametrize("text, spelled", [
    ("f9", "F9"), ("ctrl+tab", "Ctrl+Tab"), ("alt+shift+ctrl+up", "Ctrl+Shift+Alt+Up"),
    ("meta+k meta+s", "Ctrl+K Ctrl+S"), ("Ctrl+\\", "Ctrl+\\"), ("Ctrl+,", "Ctrl+,"),
])
def test_normalize(text: str, spelled: str) -> None:
    assert normalize(text) == spelled


def test_normalize_refuses_plus_alone() -> None:
    with pytest.raises(BadKey):
        normalize("Ctrl++")

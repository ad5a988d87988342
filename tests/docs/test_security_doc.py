"""docs/security.md states what the running server does: each check reads a fact from the doc's
text and holds it against the code or a live team-mode server, so a wrong edit of the doc, or a
change of the server the doc does not follow, fails here."""

import dataclasses
import json
import re
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from argon2 import PasswordHasher
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

from server.api.ws_limits import DEVICE_MAX_BYTES, TAB_MAX_BYTES
from server.api.ws_refusal import REASON_BYTES, close_reason
from server.core.config import REPO_ROOT, Settings
from server.users import passwords
from tests.server.team.conftest import ROLES, LiveTeam, start_live_team, team_settings
from tests.server.team.sockets import close_of, expect_closed, greeted
from tests.waiting import wait_until

DOC = (REPO_ROOT / "docs" / "security.md").read_text()
SETTINGS = {f"MNNWB_{name.upper()}": name for name in Settings.model_fields}
MIB = 1024 * 1024


def section(title: str, level: str = "##") -> str:
    """The text under ``title`` up to the next heading of the same or a higher level."""
    found = re.search(rf"^{level} {re.escape(title)}\n(.*?)(?=^#{{1,{len(level)}}} |\Z)", DOC, re.M | re.S)
    assert found, f"docs/security.md has no section {level} {title}"
    return found.group(1)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_every_setting_the_doc_names_is_a_setting():
    named = set(re.findall(r"\bMNNWB_[A-Z][A-Z0-9_]*", DOC))
    assert len(named) >= 10, named
    assert sorted(named - SETTINGS.keys()) == [], "not fields of Settings (server/core/config.py)"


def test_the_admins_decisions_name_every_setting_that_widens_or_narrows_what_people_may_do():
    decisions = section("What an admin must decide", "###")
    named = {SETTINGS[name] for name in re.findall(r"\bMNNWB_[A-Z][A-Z0-9_]*", decisions) if name in SETTINGS}
    required = {name for name in Settings.model_fields
                if name.startswith("sandbox") or name.endswith("_per_user")}
    required |= {"mode", "host", "allowed_hosts", "certfile", "keyfile", "team_terminal",
                 "llm_allow_remote_code", "git_allowed_hosts", "market_sources"}
    assert sorted(required - named) == []


def _raised_in_server(code: str, source: str) -> bool:
    """``code`` given as an error's code: ``code=ErrorCode.X``, ``code = ErrorCode.X`` (an
    exception class), ``"code": ErrorCode.X``, or an argument (``Quota("active jobs",
    ErrorCode.JOB_LIMIT, …)``); the same with the code as a string literal."""
    quoted = rf"""(?:["']{re.escape(code)}["']|\bErrorCode\.{re.escape(code.upper())}\b)"""
    return re.search(rf"""(?:\bcode\s*=\s*|["']code["']:\s*|[(,]\s*){quoted}""", source) is not None


def test_every_error_code_the_threat_model_names_is_answered_by_the_server():
    threat_model = section("Threat model")
    codes = set(re.findall(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`", threat_model))
    codes |= set(re.findall(r"`\d{3} ([a-z][a-z0-9_]*)`", DOC))
    assert len(codes) >= 10, codes
    source = "\n".join(path.read_text() for path in sorted((REPO_ROOT / "server").rglob("*.py")))
    assert sorted(code for code in codes if not _raised_in_server(code, source)) == []


def test_the_frame_limits_written_are_the_servers():
    limits = {"tab": TAB_MAX_BYTES, "device agent": DEVICE_MAX_BYTES}
    written = re.findall(r"\b(tab|device agent) (\d+) MiB\b", flat(DOC))
    assert {kind for kind, _ in written} == set(limits), written
    assert [(kind, int(mib) * MIB) for kind, mib in written] == [(kind, limits[kind]) for kind, _ in written]


# --- against a live team-mode server --------------------------------------------------------------

@pytest.fixture(scope="module")
def shared_team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveTeam]:
    """One person may have one terminal here, so a limit is reached with one."""
    with pytest.MonkeyPatch.context() as patch:
        # Real argon2id at a test-sized cost: the default takes about a second per account.
        cheap = passwords.Hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        patch.setattr(passwords, "current", cheap)
        data = tmp_path_factory.mktemp("security-doc") / "data"
        yield from start_live_team(team_settings(data, terminals_per_user=1))


@pytest.fixture
def team(shared_team: LiveTeam) -> Iterator[LiveTeam]:
    """The module's server and accounts, with the sockets this test opens closed when it ends: a
    terminal left open would count against the next test's limit of one."""
    with ExitStack() as opened:
        yield dataclasses.replace(shared_team, opened=opened)


def _websocket_facts() -> dict[str, Any]:
    """From the bullet "Websocket refusals": the refusals answered at the handshake, its HTTP
    status and whether it has a body; the refusals accepted and then closed, their close code and
    the most bytes of their reason; the close code of an open socket losing its right."""
    bullet = re.search(r"^\* \*\*Websocket refusals:\*\*(.*?)(?=^\* |^\n)", DOC, re.M | re.S)
    assert bullet, "docs/security.md has no bullet **Websocket refusals:**"
    text = flat(bullet.group(1))
    at_handshake = re.search(r"\(([^)]*)\) is closed before it is accepted", text)
    status = re.search(r"answers with HTTP `(\d{3})`", text)
    accepted = re.search(r"refused a socket \(([^)]*)\) has it accepted and then closed once with `(\d{4})`",
                         text)
    reason_bytes = re.search(r"cut to at most (\d+) bytes", text)
    close = re.search(r"already open is closed with `(\d{4})`", text)
    assert at_handshake and status and accepted and reason_bytes and close, text
    return {"at_handshake": at_handshake.group(1).split(", "), "status": int(status.group(1)),
            "no_body": "no body" in text, "accepted": accepted.group(1).split(", "),
            "refused_code": int(accepted.group(2)), "reason_bytes": int(reason_bytes.group(1)),
            "close": int(close.group(1))}


def _refused(team: LiveTeam, path: str, headers: dict[str, str],
             host: str | None = None) -> tuple[int, bytes]:
    """The HTTP answer to a handshake refused before it is accepted; ``host`` names another Host
    than the server's own (the connection still goes to the server)."""
    url = (f"ws://{host}" if host else team.url.replace("http", "ws", 1)) + path
    server = urlsplit(team.url)
    sock = socket.create_connection((server.hostname, server.port)) if host else None
    with pytest.raises(InvalidStatus) as caught:
        ws_connect(url, additional_headers=headers, sock=sock).close()
    return caught.value.response.status_code, bytes(caught.value.response.body or b"")


def _refusal_at_handshake(team: LiveTeam, case: str, pid: str) -> tuple[int, bytes]:
    """A handshake refused for ``case``, one of the reasons the doc lists."""
    tab = f"/api/projects/{pid}/ws"
    if case == "no or bad credentials":
        nothing, bad = _refused(team, tab, {}), _refused(team, tab, {"Authorization": "Bearer mnnwb_forged"})
        assert nothing == bad, (nothing, bad)
        return nothing
    if case == "a foreign `Origin`":
        return _refused(team, tab, {**team.auth("owner"), "Origin": "http://attacker.example"})
    if case == "a foreign `Host`":
        return _refused(team, tab, team.auth("owner"), host="rebound.example")
    raise AssertionError(f"the doc lists a handshake refusal this test cannot make: {case!r}")


def _closed_after_accept(team: LiveTeam, path: str, who: str) -> tuple[int, str]:
    ws = ws_connect(team.url.replace("http", "ws", 1) + path, additional_headers=team.auth(who))
    with ws, pytest.raises(ConnectionClosed) as caught:
        ws.recv(timeout=30)
    rcvd = caught.value.rcvd
    assert rcvd is not None, (path, who)
    return rcvd.code, rcvd.reason


def _refusal_after_accept(team: LiveTeam, case: str, pid: str) -> tuple[int, str]:
    """A socket a signed-in person is refused for ``case``: its close code and reason."""
    if case == "no right to the project":
        return _closed_after_accept(team, f"/api/projects/{pid}/ws", "outsider")
    if case == "a role that does not allow it":
        return _closed_after_accept(team, f"/api/projects/{pid}/lsp", "viewer")
    if case == "a limit reached":
        first = team.socket(f"/api/projects/{pid}/terminal", "admin")
        assert greeted(first)["type"] == "hello"
        refused = _closed_after_accept(team, f"/api/projects/{pid}/terminal", "admin")
        # a dropped socket only detaches: the terminal is ended, or it would hold the limit of one
        first.send(json.dumps({"type": "close"}))
        assert wait_until(lambda: close_of(first), what="the terminal to end") == (1000, "")
        return refused
    raise AssertionError(f"the doc lists a websocket refusal this test cannot make: {case!r}")


def test_a_refused_handshake_is_answered_as_the_doc_says(team: LiveTeam):
    facts = _websocket_facts()
    pid = team.new_project("refusals")
    assert greeted(team.socket(f"/api/projects/{pid}/ws", "owner"))["type"] == "hello"
    assert len(facts["at_handshake"]) == 3, facts
    for case in facts["at_handshake"]:
        answered, body = _refusal_at_handshake(team, case, pid)
        assert answered == facts["status"], (case, answered)
        assert body == b"" or not facts["no_body"], (case, body)


def test_a_signed_in_persons_refusal_is_closed_with_the_reason_as_the_doc_says(team: LiveTeam):
    facts = _websocket_facts()
    pid = team.new_project("accepted-refusals")
    reasons = {"no right to the project": "no such project",
               "a role that does not allow it": "this needs the editor role on the project; you are a viewer",
               "a limit reached": "at most 1 terminals per user; close one first"}
    assert sorted(facts["accepted"]) == sorted(reasons), facts
    for case in facts["accepted"]:
        assert _refusal_after_accept(team, case, pid) == (facts["refused_code"], reasons[case]), case


def test_a_refusals_reason_is_cut_to_the_bytes_the_doc_says():
    limit = _websocket_facts()["reason_bytes"]
    assert REASON_BYTES == limit
    cut = close_reason("é" * limit)  # two bytes each: the cut may not split one
    assert (len(cut.encode()), cut) == (limit - limit % 2, "é" * (limit // 2))
    assert close_reason("short") == "short"


def test_an_open_socket_whose_right_is_taken_away_closes_with_the_code_the_doc_says(team: LiveTeam,
                                                                                    record_property):
    close = _websocket_facts()["close"]
    pid = team.new_project("revoked")
    tab = team.socket(f"/api/projects/{pid}/ws", "viewer")
    assert greeted(tab)["type"] == "hello"
    since = time.monotonic()
    removed = httpx.delete(f"{team.url}/api/projects/{pid}/members/viewer", headers=team.auth("owner"))
    assert removed.status_code == 204, removed.text
    code, reason = expect_closed(tab, since, record_property, "tab")
    assert (code, bool(reason)) == (close, True), (code, reason)


def _listing_users() -> str:
    """The sentence of "Who may list users." that says who may call ``GET /api/users``."""
    paragraph = re.search(r"\*\*Who may list users\.\*\*(.*?)(?:\n\n|\Z)", DOC, re.S)
    assert paragraph, "docs/security.md does not say who may list users"
    sentence = re.search(r"`GET /api/users`(.*?)\.(?:\s|\Z)", flat(paragraph.group(1)))
    assert sentence, paragraph.group(1)
    return sentence.group(1)


def test_exactly_the_roles_the_doc_names_may_list_users(team: LiveTeam):
    sentence = _listing_users()
    allowed = {who for who in ROLES if re.search(rf"\b{who}s?\b", sentence)}
    assert allowed, sentence
    answers = {who: httpx.get(f"{team.url}/api/users", headers=team.auth(who)).status_code for who in ROLES}
    assert answers == {who: 200 if who in allowed else 403 for who in ROLES}
    assert httpx.get(f"{team.url}/api/users").status_code == 401


def test_listing_users_in_local_mode_answers_as_the_doc_says(client):
    said = re.search(r"In local mode it is `(\d{3}) ([a-z_]+)`", flat(DOC))
    assert said, "docs/security.md does not say what GET /api/users answers in local mode"
    response = client.get("/api/users")
    assert (response.status_code, response.json()["code"]) == (int(said.group(1)), said.group(2))

"""Access taken away is taken at once: the sockets it covered close with 1008 and a reason, the
terminals it covered end, and a reconnect is refused. A team-mode server on a real port, real
websockets, real shells and a real language server."""

import io
import time

import httpx
import pytest

from server import cli
from tests.server.team.conftest import CSRF, LiveTeam
from tests.server.team.sockets import (
    close_of,
    expect_closed,
    greeted,
    refused,
    refused_after_accept,
    shell_pid,
    still_served,
)
from tests.waiting import process_running, wait_until


def test_removing_a_member_closes_their_sockets_and_ends_their_terminal(live_team: LiveTeam,
                                                                        record_property):
    pid = live_team.new_project()
    tab = live_team.socket(f"/api/projects/{pid}/ws", "editor")
    terminal = live_team.socket(f"/api/projects/{pid}/terminal", "editor")
    lsp = live_team.socket(f"/api/projects/{pid}/lsp", "editor")
    own = live_team.socket("/api/ws", "editor")
    other = live_team.socket(f"/api/projects/{pid}/ws", "viewer")
    for ws in (tab, lsp, own, other):
        greeted(ws)
    shell = shell_pid(terminal)
    since = time.monotonic()
    removed = httpx.delete(f"{live_team.url}/api/projects/{pid}/members/editor",
                           headers=live_team.auth("owner"))
    assert removed.status_code == 204
    for name, ws in (("tab", tab), ("terminal", terminal), ("lsp", lsp)):
        assert expect_closed(ws, since, record_property, name) == (
            1008, "you are no longer a member of the project")
    wait_until(lambda: not process_running(shell), what="the editor's shell to end")
    # Their own channel and the other members' sockets were not covered by the change.
    still_served(live_team, pid, other, "after.txt")
    assert close_of(own) is None
    assert refused_after_accept(live_team, f"/api/projects/{pid}/ws", "editor") == (1008, "no such project")


@pytest.mark.parametrize("start", ["editor", "owner"])
def test_lowering_a_role_to_viewer_closes_what_a_viewer_may_not_have(live_team: LiveTeam, start: str,
                                                                     record_property):
    pid = live_team.new_project()
    members = f"{live_team.url}/api/projects/{pid}/members/editor"
    if start == "owner":
        made = httpx.put(members, json={"role": "owner"}, headers=live_team.auth("owner"))
        assert made.status_code == 200
    tab = live_team.socket(f"/api/projects/{pid}/ws", "editor")
    terminal = live_team.socket(f"/api/projects/{pid}/terminal", "editor")
    lsp = live_team.socket(f"/api/projects/{pid}/lsp", "editor")
    for ws in (tab, lsp):
        greeted(ws)
    shell = shell_pid(terminal)
    since = time.monotonic()
    lowered = httpx.put(members, json={"role": "viewer"}, headers=live_team.auth("owner"))
    assert lowered.status_code == 200
    for name, ws in (("tab", tab), ("terminal", terminal), ("lsp", lsp)):
        assert expect_closed(ws, since, record_property, name) == (
            1008, "your role on the project is now viewer")
    wait_until(lambda: not process_running(shell), what="the shell to end")
    # A viewer follows the project again, without commands; the terminal stays refused.
    again = live_team.socket(f"/api/projects/{pid}/ws", "editor")
    assert greeted(again)["type"] == "hello"
    still_served(live_team, pid, again, "seen.txt")
    assert refused_after_accept(live_team, f"/api/projects/{pid}/terminal", "editor") == (
        1008, "this needs the editor role on the project; you are a viewer")


def test_owner_to_editor_closes_nothing(live_team: LiveTeam):
    pid = live_team.new_project()
    members = f"{live_team.url}/api/projects/{pid}/members/editor"
    assert httpx.put(members, json={"role": "owner"}, headers=live_team.auth("owner")).status_code == 200
    tab = live_team.socket(f"/api/projects/{pid}/ws", "editor")
    greeted(tab)
    assert httpx.put(members, json={"role": "editor"}, headers=live_team.auth("owner")).status_code == 200
    still_served(live_team, pid, tab, "kept.txt")
    assert close_of(tab) is None


def _logout(team: LiveTeam, everywhere: bool, cookie: str | None = None, who: str | None = None) -> None:
    headers = {"Cookie": f"mnnwb_session={cookie}", **CSRF} if cookie else team.auth(str(who))
    done = httpx.post(f"{team.url}/api/auth/logout", json={"everywhere": everywhere}, headers=headers)
    assert done.status_code == 204, done.text


def test_signing_out_closes_the_sockets_of_the_ended_sessions(live_team: LiveTeam, record_property):
    pid = live_team.new_project()
    tab = f"/api/projects/{pid}/ws"
    first, second = live_team.login("editor"), live_team.login("editor")
    by_first, by_second = live_team.socket(tab, cookie=first), live_team.socket(tab, cookie=second)
    own = live_team.socket("/api/ws", cookie=first)
    by_token = live_team.socket(tab, "editor")
    terminal = live_team.socket(f"/api/projects/{pid}/terminal", cookie=first)
    for ws in (by_first, by_second, own, by_token):
        greeted(ws)
    shell = shell_pid(terminal)
    since = time.monotonic()
    _logout(live_team, everywhere=False, cookie=first)
    for name, ws in (("tab", by_first), ("user", own), ("terminal", terminal)):
        assert expect_closed(ws, since, record_property, name) == (1008, "signed out")
    wait_until(lambda: not process_running(shell), what="the shell of the ended session to end")
    still_served(live_team, pid, by_second, "one.txt")
    assert refused(live_team, tab, cookie=first) == 403
    since = time.monotonic()
    _logout(live_team, everywhere=True, who="editor")
    assert expect_closed(by_second, since, record_property, "everywhere") == (1008, "signed out")
    still_served(live_team, pid, by_token, "two.txt")  # "everywhere" leaves API tokens alone
    [token] = httpx.get(f"{live_team.url}/api/auth/tokens", headers=live_team.auth("editor")).json()
    since = time.monotonic()
    revoked = httpx.delete(f"{live_team.url}/api/auth/tokens/{token['id']}", headers=live_team.auth("editor"))
    assert revoked.status_code == 204
    assert expect_closed(by_token, since, record_property, "token") == (1008, "the API token was revoked")


def _cli(team: LiveTeam, monkeypatch: pytest.MonkeyPatch, *argv: str, stdin: str = "") -> None:
    """``mnnwb user …`` on the server's data folder: another program than the server, as it is
    in use (run in this process only because a process start is slow here)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    data_dir = str(team.live.settings.data_dir)
    assert cli.main(["user", argv[0], "--data-dir", data_dir, *argv[1:]]) == 0


def test_password_change_and_removal_by_the_cli_close_sockets(live_team: LiveTeam, record_property,
                                                              monkeypatch: pytest.MonkeyPatch):
    pid = live_team.new_project()
    tab = f"/api/projects/{pid}/ws"
    by_cookie = live_team.socket(tab, cookie=live_team.login("editor"))
    by_token = live_team.socket(tab, "editor")
    terminal = live_team.socket(f"/api/projects/{pid}/terminal", "editor")
    for ws in (by_cookie, by_token):
        greeted(ws)
    shell = shell_pid(terminal)
    since = time.monotonic()
    _cli(live_team, monkeypatch, "passwd", "editor", "--password-stdin", stdin="a brand new password\n")
    assert expect_closed(by_cookie, since, record_property, "passwd") == (1008, "the sign-in has ended")
    still_served(live_team, pid, by_token, "token.txt")  # a new password leaves API tokens alone
    since = time.monotonic()
    _cli(live_team, monkeypatch, "remove", "editor")
    for name, ws in (("removed_tab", by_token), ("removed_terminal", terminal)):
        assert expect_closed(ws, since, record_property, name) == (1008, "the sign-in has ended")
    wait_until(lambda: not process_running(shell), what="the removed user's shell to end")
    assert refused(live_team, tab, "editor") == 403

"""Two people, two browser contexts: each signs in on the login page and sees only what their
membership allows, down to the project websocket."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from server.api.services import services_of
from server.users import service
from tests.conftest import LiveServer, start_live_server
from tests.server.team.conftest import PASSWORD, team_settings

pytestmark = pytest.mark.browser

OPEN_SOCKET = """async (pid) => await new Promise((resolve) => {
  const ws = new WebSocket(`ws://${location.host}/api/projects/${pid}/ws`);
  ws.onmessage = (event) => { resolve(JSON.parse(event.data).type); ws.close(); };
  ws.onclose = () => resolve("closed");
})"""
FETCH = """async ([method, url, body]) => {
  const init = {method, headers: {"Content-Type": "application/json"}};
  if (body !== null) init.body = JSON.stringify(body);
  const response = await fetch(url, init);
  return [response.status, await response.text()];
}"""


@pytest.fixture
def team_server(tmp_path: Path) -> Iterator[LiveServer]:
    live, thread = start_live_server(team_settings(tmp_path / "data"))
    engine = services_of(live.server.config.app).engine
    with Session(engine) as session:
        for name in ("alice", "bob"):
            service.add_user(session, name, PASSWORD)
    try:
        yield live
    finally:
        live.server.should_exit = True
        thread.join(timeout=15)


def sign_in(page: Page, url: str, name: str, password: str = PASSWORD) -> None:
    page.goto(f"{url}/p/nothing-yet")
    expect(page).to_have_url(f"{url}/login?next=/p/nothing-yet")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_two_people_see_only_what_membership_allows(
    team_server: LiveServer, browser: Browser, tmp_path: Path
):
    url = team_server.url
    alice = browser.new_context().new_page()
    bob = browser.new_context().new_page()
    try:
        sign_in(alice, url, "alice")
        expect(alice).to_have_url(f"{url}/p/nothing-yet")
        cookie = alice.context.cookies()[0]
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        status, body = alice.evaluate(FETCH, ["POST", "/api/projects", {"name": "secret"}])
        assert status == 201
        pid = body.split('"id":"')[1].split('"')[0]

        sign_in(bob, url, "bob", "not the password")
        expect(bob.get_by_role("alert")).to_have_text("wrong user name or password")
        bob.get_by_label("Password").fill(PASSWORD)
        bob.get_by_role("button", name="Sign in").click()
        expect(bob).to_have_url(f"{url}/p/nothing-yet")
        assert bob.goto(f"{url}/p/{pid}").status == 404  # type: ignore[union-attr]
        assert bob.evaluate(OPEN_SOCKET, pid) == "closed"
        assert alice.evaluate(OPEN_SOCKET, pid) == "hello"

        shared = alice.evaluate(FETCH, ["PUT", f"/api/projects/{pid}/members/bob", {"role": "viewer"}])
        assert shared[0] == 200
        assert bob.evaluate(OPEN_SOCKET, pid) == "hello"
        write = ["PUT", f"/api/projects/{pid}/files/content?path=main.py", {"content": "x = 1\n"}]
        assert bob.evaluate(FETCH, write)[0] == 403
        assert alice.evaluate(FETCH, write)[0] == 200
    except BaseException:
        for who, page in (("alice", alice), ("bob", bob)):
            page.screenshot(path=tmp_path / f"failure-{who}.png")
        raise
    finally:
        alice.context.close()
        bob.context.close()

"""Team mode in the browser: signing in and out, the members dialog, a viewer's read-only editor,
personal API tokens and the way back to the sign-in page when a session ends."""

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from sqlmodel import Session

from server.api.services import services_of
from server.core.config import Settings
from server.users import service
from tests.conftest import LiveServer, start_live_server
from tests.server.team.conftest import PASSWORD, cheap_argon2  # noqa: F401 - an autouse fixture
from tests.webui.conftest import ConsoleErrors
from tests.webui.workbench import editor_lines, open_file, tab

pytestmark = pytest.mark.browser


@pytest.fixture
def team_server(tmp_path: Path) -> Iterator[LiveServer]:
    """Team mode with the administrator ``alice`` and the member ``bob``."""
    live, thread = start_live_server(Settings(data_dir=tmp_path / "data", mode="team", watch_files=False))
    engine = services_of(live.server.config.app).engine
    with Session(engine) as session:
        service.add_user(session, "alice", PASSWORD, "admin")
        service.add_user(session, "bob", PASSWORD)
    try:
        yield live
    finally:
        live.server.should_exit = True
        thread.join(timeout=15)


def sign_in(page: Page, url: str, path: str, name: str) -> None:
    """Opens ``path``, is sent to the sign-in page, signs in and lands back on ``path``."""
    page.goto(url + path)
    expect(page).to_have_url(f"{url}/login?next={path}")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(url + path)


def create_project_on_home_page(home: Page, name: str) -> tuple[str, Page]:
    """The new project's id, and the tab the home page opened on it."""
    home.get_by_test_id("new-project-name").fill(name)
    home.get_by_test_id("template-empty").click()
    with home.context.expect_page() as opened:
        home.get_by_test_id("new-project-submit").click()
    row = home.locator(f"[data-testid=project-row][data-project-name='{name}']")
    expect(row).to_be_visible()
    return str(row.get_attribute("data-project-id")), opened.value


def add_member(dialog: Locator, name: str, role: str) -> None:
    dialog.get_by_test_id("member-name").fill(name)
    dialog.get_by_test_id("member-new-role").select_option(role)
    dialog.get_by_test_id("member-add").click()


def test_an_admin_shares_a_project_with_a_viewer_who_cannot_edit(
    team_server: LiveServer, people: dict[str, BrowserContext], tmp_path: Path, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"404 .*/members/nobody")  # adding a user who does not exist
    console_errors.allow(r"401 .*/api/auth/me\)$")  # the other tab, once she signed out
    url = team_server.url
    alice = people["alice"].new_page()
    sign_in(alice, url, "/", "alice")
    expect(alice.get_by_test_id("user-name")).to_have_text("alice")
    expect(alice.get_by_test_id("user-role")).to_have_text("admin")
    pid, opened = create_project_on_home_page(alice, "shared")
    expect(opened.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")

    alice.goto(f"{url}/p/{pid}")
    expect(alice.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    alice.get_by_test_id("action-members").click()
    dialog = alice.get_by_test_id("members-dialog")
    picker = dialog.locator("#team-user-names option[value='bob']")
    expect(picker).to_have_count(1)
    add_member(dialog, "nobody", "editor")
    expect(dialog.get_by_test_id("members-error")).to_have_text("no such user: nobody")
    add_member(dialog, "bob", "viewer")
    expect(dialog.locator("[data-testid=member-row][data-user='bob']")).to_have_attribute(
        "data-role", "viewer"
    )
    expect(dialog.get_by_test_id("members-error")).to_have_count(0)
    expect(picker).to_have_count(0)
    alice.screenshot(path=tmp_path / "members.png")
    alice.get_by_test_id("members-close").click()
    expect(alice.get_by_test_id("status-readonly")).to_have_count(0)

    bob = people["bob"].new_page()
    sign_in(bob, url, f"/p/{pid}", "bob")
    expect(bob.get_by_test_id("status-readonly")).to_have_text("Read-only: you are a viewer")
    expect(bob.get_by_test_id("statusbar").get_by_test_id("user-name")).to_have_text("bob")
    open_file(bob, "README.md")
    expect(editor_lines(bob, "README.md")).to_contain_text("Add your code here.")
    # Nothing that would change the project is offered to a viewer.
    expect(bob.get_by_test_id("tree-new-file")).to_have_count(0)
    bob.locator("[data-testid=tree-item][data-path='README.md']").click(button="right")
    expect(bob.get_by_test_id("menu-open")).to_be_visible()
    expect(bob.get_by_test_id("menu-rename")).to_have_count(0)
    expect(bob.get_by_test_id("menu-delete")).to_have_count(0)
    bob.keyboard.press("Escape")
    before = editor_lines(bob, "README.md").inner_text()
    editor_lines(bob, "README.md").click()
    bob.keyboard.type("typed by a viewer")
    bob.get_by_test_id("action-members").click()
    expect(bob.get_by_test_id("members-readonly")).to_be_visible()
    expect(bob.get_by_test_id("member-add")).to_have_count(0)
    bob.screenshot(path=tmp_path / "viewer.png")
    assert editor_lines(bob, "README.md").inner_text() == before
    expect(tab(bob, "README.md")).to_have_attribute("data-state", "clean")

    alice.get_by_test_id("statusbar").get_by_test_id("user-menu").click()
    alice.get_by_test_id("menu-sign-out").click()
    expect(alice).to_have_url(f"{url}/login")
    # The tab the new project opened in had the same sign-in: its socket, closed with 1008, asks
    # who is signed in before it knocks again, and the answer (401) sends it to sign in, and back.
    expect(opened).to_have_url(f"{url}/login?next=%2Fp%2F{pid}")
    alice.goto(f"{url}/p/{pid}")
    expect(alice).to_have_url(f"{url}/login?next=/p/{pid}")


def test_tokens_and_signing_out_everywhere(
    team_server: LiveServer, people: dict[str, BrowserContext], tmp_path: Path, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"401 .*/api/auth/me\)$")  # the tabs still open after signing out everywhere
    url = team_server.url
    home = people["bob"].new_page()
    sign_in(home, url, "/", "bob")
    pid, opened = create_project_on_home_page(home, "mine")
    project = people["bob"].new_page()
    project.goto(f"{url}/p/{pid}")
    for tab_ in (opened, project):
        expect(tab_.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")

    home.get_by_test_id("user-menu").click()
    home.get_by_test_id("menu-tokens").click()
    dialog = home.get_by_test_id("tokens-dialog")
    expect(dialog.get_by_test_id("tokens-empty")).to_be_visible()
    dialog.get_by_test_id("token-name").fill("ci")
    dialog.get_by_test_id("token-create").click()
    expect(dialog.get_by_test_id("token-value")).to_have_value(re.compile(r"^mnnwb_\S{20,}$"))
    home.screenshot(path=tmp_path / "tokens.png")
    secret = {"Authorization": f"Bearer {dialog.get_by_test_id('token-value').input_value()}"}
    assert httpx.get(f"{url}/api/auth/me", headers=secret).json()["name"] == "bob"
    row = dialog.locator("[data-testid=token-row][data-name='ci']")
    expect(row).to_contain_text("never")
    row.get_by_test_id("token-revoke").click()
    expect(dialog.get_by_test_id("tokens-empty")).to_be_visible()
    expect(dialog.get_by_test_id("token-secret")).to_have_count(0)
    assert httpx.get(f"{url}/api/auth/me", headers=secret).status_code == 401
    dialog.get_by_test_id("tokens-close").click()

    home.get_by_test_id("user-menu").click()
    home.get_by_test_id("menu-sign-out-everywhere").click()
    expect(home).to_have_url(f"{url}/login")
    # The other tabs' session ended too: each one's socket, closed with 1008, asks who is signed
    # in before it knocks again (never refused at the handshake), and goes to sign in, and back.
    for tab_ in (opened, project):
        expect(tab_).to_have_url(f"{url}/login?next=%2Fp%2F{pid}")


def test_local_mode_shows_nothing_of_accounts(browser: Browser, tmp_path: Path) -> None:
    live, thread = start_live_server(Settings(data_dir=tmp_path / "data", watch_files=False))
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"{live.url}/?token={live.token}")
        pid, _ = create_project_on_home_page(page, "solo")
        with page.expect_response("**/api/auth/me") as me:
            page.goto(f"{live.url}/p/{pid}")
        assert me.value.json()["mode"] == "local"
        expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
        # The answer has been handled once a task after it has run.
        page.evaluate("() => new Promise((done) => setTimeout(done))")
        expect(page.get_by_test_id("action-members")).to_have_count(0)
        expect(page.get_by_test_id("user-menu")).to_have_count(0)
        expect(page.get_by_test_id("status-readonly")).to_have_count(0)
    finally:
        ctx.close()
        live.server.should_exit = True
        thread.join(timeout=15)

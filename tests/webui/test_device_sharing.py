"""Sharing a device in team mode: its owner shares it with another user from the Devices panel,
who then sees it in their own Devices panel, until the owner removes the share."""

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect
from sqlmodel import Session

from server.api.services import services_of
from server.core.config import Settings
from server.users import service, sessions
from tests.conftest import CSRF, LiveServer, start_live_server
from tests.device_bridge.harness import AgentProcess
from tests.server.team.conftest import PASSWORD, cheap_argon2  # noqa: F401 - an autouse fixture
from tests.waiting import wait_until
from tests.webui.conftest import ConsoleErrors
from tests.webui.test_team import sign_in

pytestmark = pytest.mark.browser


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[LiveServer, dict[str, dict[str, str]]]]:
    """Team mode with the members ``ann`` and ``ben``, each with a personal API token."""
    # The web UI is whatever MNNWB_WEBUI_DIST names (the default build otherwise).
    live, thread = start_live_server(Settings(data_dir=tmp_path / "data", mode="team", watch_files=False))
    auth: dict[str, dict[str, str]] = {}
    with Session(services_of(live.server.config.app).engine) as session:
        for who in ("ann", "ben"):
            user = service.add_user(session, who, PASSWORD)
            token = sessions.create_token(session, user, "tests", None).token
            auth[who] = {"Authorization": f"Bearer {token}", **CSRF}
    try:
        yield live, auth
    finally:
        live.server.should_exit = True
        thread.join(timeout=15)


def new_project(url: str, auth: dict[str, str], name: str) -> str:
    response = httpx.post(f"{url}/api/projects", headers=auth, json={"name": name, "template": "empty"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def devices_panel(page: Page, url: str, pid: str, who: str):
    sign_in(page, url, f"/p/{pid}", who)
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    page.get_by_test_id("action-devices").click()
    return page.get_by_test_id("devices-panel")


def test_an_owner_shares_a_device_and_takes_it_back(
    team: tuple[LiveServer, dict[str, dict[str, str]]], people: dict[str, BrowserContext], tmp_path: Path,
    console_errors: ConsoleErrors,
) -> None:
    console_errors.allow(r"404 .*/shares/nobody")  # sharing with a user who does not exist
    live, auth = team
    url = live.url
    pairing = httpx.post(f"{url}/api/devices/pairings", json={"name": "board"}, headers=auth["ann"])
    assert pairing.status_code == 201, pairing.text
    agent = AgentProcess(url, tmp_path / "agent", pairing.json()["token"], "board")
    try:
        wait_until(
            lambda: httpx.get(f"{url}/api/devices", headers=auth["ann"]).json(),
            what="the device to be paired",
        )
        ann = people["ann"].new_page()
        panel = devices_panel(ann, url, new_project(url, auth["ann"], "ann-work"), "ann")
        row = panel.get_by_test_id("device-row")
        expect(row.get_by_test_id("device-name")).to_have_text("board")
        row.hover()
        row.get_by_test_id("device-share").click()
        dialog = ann.get_by_test_id("share-dialog")
        expect(dialog.get_by_test_id("share-none")).to_be_visible()
        dialog.get_by_test_id("share-name").fill("nobody")
        dialog.get_by_test_id("share-add").click()
        expect(dialog.get_by_test_id("share-error")).to_have_text("no such user: nobody")
        dialog.get_by_test_id("share-name").fill("ben")
        dialog.get_by_test_id("share-add").click()
        expect(dialog.locator("[data-testid=share-row][data-user='ben']")).to_have_count(1)
        expect(dialog.get_by_test_id("share-error")).to_have_count(0)
        ann.screenshot(path=tmp_path / "share.png")

        ben = people["ben"].new_page()
        ben_panel = devices_panel(ben, url, new_project(url, auth["ben"], "ben-work"), "ben")
        ben_row = ben_panel.get_by_test_id("device-row")
        expect(ben_row.get_by_test_id("device-name")).to_have_text("board")
        expect(ben_row.get_by_test_id("device-owner")).to_have_text("owned by ann")
        expect(row.get_by_test_id("device-owner")).to_have_count(0)
        # Renaming, removing and sharing stay with the owner.
        expect(ben_row.get_by_test_id("device-rename")).to_have_count(0)
        expect(ben_row.get_by_test_id("device-share")).to_have_count(0)
        expect(row.get_by_test_id("device-rename")).to_have_count(1)

        dialog.locator("[data-testid=share-row][data-user='ben']").get_by_test_id("share-remove").click()
        expect(dialog.get_by_test_id("share-none")).to_be_visible()
        # Ben's panel polls the device list: the device goes within a refresh or two.
        expect(ben_row).to_have_count(0, timeout=10_000)
    finally:
        agent.kill()

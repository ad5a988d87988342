"""A playground folder uploaded as a zip on the home page's "New project" becomes a project that
opens as a playground (its Playground panel shows); a hostile zip is refused by name."""

import io
import json
import re
import zipfile
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes.playground import APP

pytestmark = pytest.mark.browser


def _zip(entries: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_an_uploaded_zip_opens_as_a_playground_project(
    context: BrowserContext, live_server, console_errors, tmp_path: Path
) -> None:
    home = context.new_page()
    home.goto(live_server.url + "/")
    home.get_by_test_id("source-zip").click()

    # a hostile zip first: refused by name, no project made
    console_errors.allow(r"422 \(Unprocessable")
    hostile = _zip({"app.mnnplayground": json.dumps(APP), "../escape.py": "print('out')\n"})
    home.get_by_test_id("new-project-zip").set_input_files(
        files=[{"name": "escape.zip", "mimeType": "application/zip", "buffer": hostile}])
    expect(home.get_by_test_id("new-project-name")).to_have_value("escape")
    home.get_by_test_id("new-project-submit").click()
    expect(home.get_by_test_id("new-project-error")).to_have_text(
        "../escape.py is a path that leaves the zip; nothing of the zip was unpacked")
    assert httpx.get(f"{live_server.url}/api/projects", headers=live_server.auth).json() == []

    folder = {"colours/app.mnnplayground": json.dumps(APP),
              "colours/main.py": "import MNNCV\nMNNCV.Kit().setLabel(0, 'from the zip')\n"}
    home.get_by_test_id("new-project-zip").set_input_files(
        files=[{"name": "colours.zip", "mimeType": "application/zip", "buffer": _zip(folder)}])
    expect(home.get_by_test_id("new-project-name")).to_have_value("colours")
    with home.context.expect_page() as opened:
        home.get_by_test_id("new-project-submit").click()
    page = opened.value
    expect(page).to_have_url(re.compile(r"/p/[0-9a-f]+$"))
    panel = page.get_by_test_id("playground-panel")  # a playground project opens it
    expect(panel).to_contain_text("Colours")
    page.screenshot(path=tmp_path / "zip-project.png")
    projects = httpx.get(f"{live_server.url}/api/projects", headers=live_server.auth).json()
    assert [(p["name"], p["kind"]) for p in projects] == [("colours", "playground")]
    root = Path(projects[0]["path"])
    # "Track with Git" was left ticked: a repository whose one commit holds the unpacked files
    assert sorted(p.name for p in root.iterdir()) == [".git", ".gitignore", "app.mnnplayground", "main.py"]
    log_url = f"{live_server.url}/api/projects/{projects[0]['id']}/git/log"
    log = httpx.get(log_url, headers=live_server.auth).json()
    assert [c["summary"] for c in log] == ["Initial commit"]
    expect(home.locator("[data-testid=project-row][data-project-name='colours']")).to_be_visible()

"""Netron's web app under /netron/: served offline to signed-in users only."""

import re
from datetime import UTC, datetime, timedelta

import pytest


def test_page_is_served_to_a_signed_in_user_with_analytics_off(client):
    response = client.get("/netron/")
    assert response.status_code == 200
    page = response.text
    assert '<script type="text/javascript" src="index.js"></script>' in page
    assert '<meta name="version" content="0.0.0">' in page
    # An old build date makes the app lock itself behind "please update".
    built = re.search(r'<meta name="date" content="([^"]+)">', page)
    assert built is not None
    age = datetime.now(UTC) - datetime.fromisoformat(built.group(1)).replace(tzinfo=UTC)
    assert timedelta(0) <= age < timedelta(minutes=5)
    assert "consent=" in response.headers["set-cookie"]
    assert "connect-src 'self'" in response.headers["content-security-policy"]


def test_app_scripts_are_served_as_javascript(client):
    response = client.get("/netron/browser.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert "browser.Host = class" in response.text
    assert client.get("/netron/mnn-schema.js").status_code == 200


def test_the_page_loads_the_script_that_selects_a_named_tensor(client):
    page = client.get("/netron/").text
    assert '<script type="text/javascript" src="mnnwb-select.js"></script>' in page
    script = client.get("/netron/mnnwb-select.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "data-selected" in script.text


@pytest.mark.parametrize("name", ["__init__.py", "server.py", "..%2Fserver.py", "missing.js", ".hidden.js"])
def test_only_the_apps_static_files_are_served(client, name):
    assert client.get(f"/netron/{name}").status_code == 404


@pytest.mark.parametrize("path", ["/netron/", "/netron/index.html", "/netron/browser.js"])
def test_anonymous_requests_are_refused(anon_client, path):
    assert anon_client.get(path).status_code == 401


def test_a_model_opens_from_the_raw_file_route(client, project):
    """The URL the graph viewer fetches: the raw file, on this origin, readable by a script."""
    pid = project["id"]
    client.put(f"/api/projects/{pid}/files/content", params={"path": "m.onnx"}, json={"content": "x"})
    response = client.get(f"/api/projects/{pid}/files/raw", params={"path": "m.onnx", "cb": "1"})
    assert response.status_code == 200 and response.content == b"x"

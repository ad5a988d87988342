"""Scripts and CI clients: a bearer-token request needs no CSRF header or JSON body; cookie
requests keep both checks (a browser attaches cookies to forged requests, never a bearer)."""

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from server.api.services import services_of
from server.core.security import COOKIE_NAME, session_value
from tests.server.team.conftest import Team, start_team, team_settings
from tests.waiting import wait_until

SLEEPER = "python -c \"import time; print('ready', flush=True); time.sleep(60)\""


def _running_job(client: TestClient, headers: dict[str, str]) -> str:
    project = client.post("/api/projects", json={"name": "ci"}, headers=headers).json()
    job = client.post(f"/api/projects/{project['id']}/jobs", json={"backend": "local", "command": SLEEPER},
                      headers=headers)
    assert job.status_code == 201, job.text
    jid = job.json()["id"]
    wait_until(lambda: "ready" in client.get(f"/api/jobs/{jid}/logs", headers=headers).json()["text"],
               what="the job to start")
    return str(jid)


def _stop_as_curl_does(client: TestClient, jid: str, credential: dict[str, str]) -> int:
    """``curl -X POST …/jobs/{id}/stop``: no body, no Content-Type, no CSRF header."""
    client.cookies.clear()
    return client.post(f"/api/jobs/{jid}/stop", headers=credential).status_code


def test_a_bearer_token_stops_a_job_without_a_csrf_header_but_a_cookie_does_not(anon_client):
    token = services_of(anon_client.app).token
    bearer = {"Authorization": f"Bearer {token}"}
    jid = _running_job(anon_client, bearer)
    cookie = {"Cookie": f"{COOKIE_NAME}={session_value(token)}"}
    assert _stop_as_curl_does(anon_client, jid, cookie) == 403
    assert _stop_as_curl_does(anon_client, jid, bearer) == 200
    wait_until(lambda: anon_client.get(f"/api/jobs/{jid}", headers=bearer).json()["status"] == "stopped",
               what="the job to stop")


@pytest.fixture
def bare_team(tmp_path) -> Iterator[Team]:
    """The team app, with a client that sends no CSRF header by default."""
    for team in start_team(team_settings(tmp_path / "data")):
        team.client.headers.pop("X-MNNWB-CSRF")
        yield team


def test_a_personal_api_token_needs_no_csrf_header_in_team_mode(bare_team: Team):
    client = bare_team.client
    owner = {"Authorization": f"Bearer {bare_team.tokens['owner']}"}
    jid = _running_job(client, owner)
    login = client.post("/api/auth/login", json={"name": "owner", "password": "correct horse battery"})
    session = {"Cookie": f"{COOKIE_NAME}={login.cookies[COOKIE_NAME]}"}
    assert _stop_as_curl_does(client, jid, session) == 403
    assert _stop_as_curl_does(client, jid, owner) == 200
    assert _stop_as_curl_does(client, jid, {"Authorization": "Bearer not-a-token"}) == 401

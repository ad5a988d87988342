"""Fixtures for cloud jobs through the API: the PAI-DLC/OSS emulator, the server's settings
pointing at it, and a project that is a Git repository with a local bare remote."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.fakes.git_remotes import bare_repo, git
from tests.fakes.paidlc import Emulator
from tests.waiting import wait_until

BUCKET = "mnnwb-artifacts"
AUTHOR = "Test Person <test@example.com>"
FINISHED = {"succeeded", "failed", "stopped"}


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator(buckets=(BUCKET,), step_delay=0.02) as emu:
        yield emu


def settings_body(emulator: Emulator, **changes: Any) -> dict[str, Any]:
    return {
        "region": "cn-hangzhou",
        "endpoint": emulator.endpoint,
        "workspace_endpoint": emulator.endpoint,
        "protocol": "http",
        "workspace_id": "ws-test",
        "image": "registry.example/pytorch:cpu",
        "ecs_spec": "ecs.c6.large",
        "oss_bucket": BUCKET,
        "oss_prefix": "wb",
        "oss_endpoint": emulator.oss_endpoint,
        "oss_path_style": True,
        "timeout_seconds": 10,
        "poll_seconds": 0.1,
        "credentials": "access_key",
        "access_key_id": emulator.access_key_id,
        "access_key_secret": emulator.access_key_secret,
        **changes,
    }


@pytest.fixture
def configured(client: TestClient, emulator: Emulator) -> dict[str, Any]:
    response = client.put("/api/settings/pai-dlc", json=settings_body(emulator))
    assert response.status_code == 200, response.text
    return response.json()


def make_git_project(client: TestClient, tmp_path: Path, name: str = "cloud") -> dict[str, Any]:
    """A project that is a Git repository whose ``origin`` is an empty bare repository."""
    project = client.post("/api/projects", json={"name": name, "template": "empty", "git": False}).json()
    pid = project["id"]
    assert client.post(f"/api/projects/{pid}/git/init").status_code == 201
    remote = bare_repo(tmp_path / f"{name}-remote.git")
    response = client.post(
        f"/api/projects/{pid}/git/remotes", json={"name": "origin", "url": remote.as_uri()}
    )
    assert response.status_code == 201, response.text
    return {**project, "remote": remote}


def remote_head(project: dict[str, Any]) -> str:
    return git("rev-parse", "main", cwd=project["remote"]).strip()


def submit(client: TestClient, project: dict[str, Any], **body: Any) -> Any:
    return client.post(f"/api/projects/{project['id']}/jobs", json={"backend": "pai-dlc", **body})


def push_body(message: str = "training code") -> dict[str, Any]:
    return {"commit_and_push": True, "message": message, "author": AUTHOR}


wait_for = wait_until


def wait_job(client: TestClient, job_id: str, statuses: set[str] = FINISHED) -> dict[str, Any]:
    return wait_for(lambda: (job := client.get(f"/api/jobs/{job_id}").json())["status"] in statuses and job)


def read_log(client: TestClient, job_id: str) -> str:
    text, offset = "", 0
    while True:
        chunk = client.get(f"/api/jobs/{job_id}/logs", params={"offset": offset}).json()
        text, offset = text + chunk["text"], chunk["offset"]
        if not chunk["text"]:
            return text

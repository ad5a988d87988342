"""Ray settings (team default and per project, secrets never returned), the backend list when
Ray is missing, job config checks and the sweep grid; no cluster needed."""

import sys

import pytest
from fastapi.testclient import TestClient

from server.core.config import Settings
from server.core.errors import Invalid
from server.training.sweeps import combinations
from tests.conftest import make_client
from tests.server.training.ray.conftest import make_project, submit

SETTINGS = {"address": "http://127.0.0.1:9", "storage": "shared_path", "shared_path": "/srv/x",
            "auth_token": "Bearer sekrit-token", "s3_secret_key": "s3-sekrit"}


def test_secrets_are_sealed_and_a_project_overrides_the_default(client: TestClient, settings: Settings):
    assert client.get("/api/settings/ray").json()["configured"] is False
    saved = client.put("/api/settings/ray", json=SETTINGS)
    assert saved.status_code == 200, saved.text
    body = saved.json()
    assert body["configured"] and body["scope"] == "default"
    assert body["has_auth_token"] and body["has_s3_secret"]
    assert "sekrit" not in saved.text and "auth_token" not in body
    db = (settings.data_dir / "workbench.db").read_bytes()
    assert b"sekrit" not in db
    project = make_project(client, "scoped")
    inherited = client.get(f"/api/projects/{project['id']}/ray-settings").json()
    assert inherited["scope"] == "default" and inherited["address"] == SETTINGS["address"]
    own = client.put(f"/api/projects/{project['id']}/ray-settings",
                     json={"address": "http://10.0.0.5:8265/", "shared_path": "/mnt/a"}).json()
    assert own["scope"] == "project" and own["address"] == "http://10.0.0.5:8265"
    assert not own["has_auth_token"]
    # Leaving a secret out keeps it; an empty one clears it.
    kept = client.put("/api/settings/ray", json={**SETTINGS, "auth_token": None}).json()
    assert kept["has_auth_token"]
    cleared = client.put("/api/settings/ray", json={**SETTINGS, "auth_token": ""}).json()
    assert not cleared["has_auth_token"] and cleared["has_s3_secret"]


def test_bad_settings_and_configs_are_refused_with_reasons(client: TestClient):
    bad = client.put("/api/settings/ray", json={"address": "ray://host:10001"})
    assert bad.status_code == 422
    project = make_project(client, "refusals")
    unset = submit(client, project)
    assert unset.status_code == 422 and unset.json()["code"] == "ray_not_configured"
    client.put("/api/settings/ray", json=SETTINGS)
    wrong = submit(client, project, config={"num_gpus": -1})
    assert wrong.status_code == 422 and wrong.json()["code"] == "bad_config"
    unknown = submit(client, project, config={"image": "x"})
    assert unknown.status_code == 422 and unknown.json()["code"] == "bad_config"


def test_settings_the_client_cannot_use_are_refused_before_they_are_saved(client: TestClient):
    """A 1,024-character prefix is kept with its trailing slash, and reads back (it once failed
    its own length check on the way out: a 500); a longer one is refused. A header name or URL
    with a control character would only fail later, inside the HTTP client."""
    longest = client.put("/api/settings/ray", json={"s3_prefix": "p" * 1024})
    assert longest.status_code == 200, longest.text
    assert longest.json()["s3_prefix"] == "p" * 1024 + "/"
    for field, value in (("s3_prefix", "p" * 1025), ("auth_header", "X-Token\r\nX-Other: 1"),
                         ("address", "http://host\x00:8265"), ("s3_bucket", "a bucket"),
                         ("shared_path", "/srv/\x00x")):
        refused = client.put("/api/settings/ray", json={field: value})
        assert (refused.status_code, refused.json()["code"]) == (422, "invalid"), (field, refused.text)
        assert refused.json()["detail"].startswith(f"{field}:")
    assert client.get("/api/settings/ray").json()["s3_prefix"] == "p" * 1024 + "/"


def test_without_ray_installed_the_backend_is_listed_unavailable(
        settings: Settings, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what ``import ray`` failing looks like
    with make_client(settings) as client:
        backends = {b["name"]: b for b in client.get("/api/training/backends").json()}
        assert backends["local"]["available"] and not backends["ray"]["available"]
        assert "pip install" in backends["ray"]["hint"]
        response = client.get("/api/settings/ray")
        assert response.status_code == 503 and response.json()["code"] == "backend_unavailable"


def test_with_ray_installed_the_backend_is_available(client: TestClient):
    backends = {b["name"]: b for b in client.get("/api/training/backends").json()}
    assert backends["ray"] == {"name": "ray", "label": "Ray cluster", "available": True,
                               "hint": None}


def test_a_grid_makes_every_combination():
    assert combinations("--lr 0.1,0.01 --batch 32,64") == [
        {"--lr": "0.1", "--batch": "32"}, {"--lr": "0.1", "--batch": "64"},
        {"--lr": "0.01", "--batch": "32"}, {"--lr": "0.01", "--batch": "64"}]
    for grid in ("--lr", "lr 0.1", "--lr 0.1 --lr 0.2", "--a 1,2,3,4,5,6,7,8 --b 1,2,3,4,5,6,7,8,9"):
        with pytest.raises(Invalid):
            combinations(grid)

"""PAI-DLC settings through the API: secrets are write-only and encrypted at rest."""

import stat
from pathlib import Path

from cryptography.fernet import Fernet
from fastapi.testclient import TestClient
from sqlmodel import Session

from server.api.services import services_of
from server.core.config import Settings
from server.core.db import utcnow
from server.training.models import PaiDlcConfig
from tests.conftest import make_client
from tests.fakes.paidlc import Emulator

from .conftest import settings_body

URL = "/api/settings/pai-dlc"


def stored_bytes(settings: Settings) -> bytes:
    """Every byte the database keeps on disk (the SQLite file and its journals)."""
    files = settings.data_dir.glob("workbench.db*")
    return b"".join(Path(f).read_bytes() for f in files)


def test_unconfigured_settings_and_submit_say_so(client: TestClient) -> None:
    got = client.get(URL).json()
    assert (got["configured"], got["has_secret"], got["credentials"]) == (False, False, "chain")
    assert got["missing"] == ["workspace_id", "oss_bucket"]
    project = client.post("/api/projects", json={"name": "p", "template": "empty"}).json()
    response = client.post(f"/api/projects/{project['id']}/jobs", json={"backend": "pai-dlc"})
    assert (response.status_code, response.json()["code"]) == (422, "pai_dlc_not_configured")
    assert client.get(f"/api/projects/{project['id']}/jobs").json() == []


def test_the_settings_name_what_a_cloud_job_still_needs(client: TestClient, emulator: Emulator) -> None:
    put = client.put(URL, json=settings_body(emulator, oss_bucket=""))
    assert (put.json()["configured"], put.json()["missing"]) == (True, ["oss_bucket"])
    assert client.get(URL).json()["missing"] == ["oss_bucket"]
    project = client.post("/api/projects", json={"name": "p", "template": "empty"}).json()
    response = client.post(f"/api/projects/{project['id']}/jobs", json={"backend": "pai-dlc"})
    assert (response.status_code, response.json()["code"]) == (422, "pai_dlc_not_configured")
    assert "oss_bucket" in response.json()["detail"]
    assert client.put(URL, json=settings_body(emulator)).json()["missing"] == []


def test_the_secret_is_write_only_and_sealed_on_disk(
    client: TestClient, settings: Settings, emulator: Emulator
) -> None:
    token = "sts-token-value-for-the-test"
    put = client.put(URL, json=settings_body(emulator, security_token=token))
    assert put.status_code == 200, put.text
    got = client.get(URL)
    for response in (put, got):
        assert emulator.access_key_secret not in response.text and token not in response.text
        assert emulator.access_key_id not in response.text
    body = got.json()
    assert (body["configured"], body["credentials"], body["has_secret"], body["has_security_token"]) == (
        True,
        "access_key",
        True,
        True,
    )
    assert body["access_key_id"] == f"{emulator.access_key_id[:4]}****{emulator.access_key_id[-4:]}"
    assert (body["workspace_id"], body["oss_prefix"], body["poll_seconds"]) == ("ws-test", "wb/", 0.1)
    on_disk = stored_bytes(settings)
    assert emulator.access_key_secret.encode() not in on_disk and token.encode() not in on_disk
    key = settings.data_dir / "secrets.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_an_omitted_secret_keeps_the_stored_one(client: TestClient, emulator: Emulator) -> None:
    client.put(URL, json=settings_body(emulator))
    keep = settings_body(emulator, ecs_spec="ecs.g6.xlarge")
    del keep["access_key_secret"]
    assert client.put(URL, json=keep).json()["has_secret"] is True
    specs = client.get(f"{URL}/ecs-specs")  # signed with the kept secret, or the emulator refuses
    assert specs.status_code == 200, specs.text
    assert "ecs.c6.large" in {s["instance_type"] for s in specs.json()}
    other = {**keep, "access_key_id": "LTAIsomeotherkey0000"}
    response = client.put(URL, json=other)
    assert (response.status_code, response.json()["code"]) == (422, "missing_access_key")


def test_the_credential_chain_drops_stored_keys(client: TestClient, emulator: Emulator) -> None:
    client.put(URL, json=settings_body(emulator))
    got = client.put(URL, json=settings_body(emulator, credentials="chain")).json()
    assert (got["credentials"], got["has_secret"], got["access_key_id"]) == ("chain", False, None)


def test_bad_credentials_give_a_clear_error_with_the_request_id(
    client: TestClient, emulator: Emulator
) -> None:
    client.put(URL, json=settings_body(emulator, access_key_secret="not-the-secret"))
    response = client.get(f"{URL}/ecs-specs")
    error = response.json()
    assert (response.status_code, error["code"]) == (403, "cloud_auth")
    assert error["request_id"] and error["request_id"] in error["detail"]
    assert "ListEcsSpecs" in error["detail"] and "not-the-secret" not in response.text


def test_a_replaced_key_file_makes_the_stored_secret_unreadable(
    settings: Settings, emulator: Emulator
) -> None:
    with make_client(settings) as client:
        assert client.put(URL, json=settings_body(emulator)).status_code == 200
    (settings.data_dir / "secrets.key").write_bytes(Fernet.generate_key())
    with make_client(settings) as client:
        assert client.get(URL).json()["has_secret"] is False
        response = client.get(f"{URL}/ecs-specs")
    assert (response.status_code, response.json()["code"]) == (409, "secret_unreadable")


def test_values_the_client_cannot_use_are_refused_before_they_are_saved(client: TestClient) -> None:
    """JSON's ``1e999`` is infinity to the parser; a NUL, a space or an over-long prefix would
    only fail later, inside the cloud SDK. Each is a 422 naming the field, and nothing is saved."""
    infinite = client.put(URL, content=b'{"timeout_seconds": 1e999}',
                          headers={"Content-Type": "application/json"})
    assert (infinite.status_code, infinite.json()["code"]) == (422, "invalid"), infinite.text
    assert infinite.json()["detail"].startswith("timeout_seconds:")
    for field, value in (("region", "cn-hangzhou\x00"), ("endpoint", "host name:80"),
                         ("workspace_endpoint", "[::1"), ("oss_endpoint", "http://a\tb"),
                         ("oss_prefix", "p" * 1025)):
        refused = client.put(URL, json={field: value})
        assert (refused.status_code, refused.json()["code"]) == (422, "invalid"), (field, refused.text)
        assert refused.json()["detail"].startswith(f"{field}:")
    assert client.get(URL).json()["configured"] is False
    specs = client.get(f"{URL}/ecs-specs")
    assert (specs.status_code, specs.json()["code"]) == (422, "pai_dlc_not_configured")


def test_a_value_saved_before_its_limit_existed_reads_back_as_the_default(
    client: TestClient, emulator: Emulator
) -> None:
    """A row an older server saved with an infinite timeout: reading the settings and calling
    the service work, with the default timeout, until the settings are saved again."""
    assert client.put(URL, json=settings_body(emulator)).status_code == 200
    with Session(services_of(client.app).engine) as session:
        row = session.get(PaiDlcConfig, 1)
        assert row is not None
        row.settings = {**row.settings, "timeout_seconds": float("inf")}
        row.updated_at = utcnow()
        session.add(row)
        session.commit()
    got = client.get(URL)
    assert got.status_code == 200, got.text
    assert (got.json()["timeout_seconds"], got.json()["workspace_id"]) == (30.0, "ws-test")
    specs = client.get(f"{URL}/ecs-specs")
    assert specs.status_code == 200, specs.text

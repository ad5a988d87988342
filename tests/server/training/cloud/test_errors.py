"""Cloud failures reach the caller as clear domain errors carrying the request id."""

import hashlib
import http.client
import socket

import pytest
from alibabacloud_oss_v2.signer import SignerV4
from alibabacloud_oss_v2.types import Credentials, HttpRequest, SigningContext
from alibabacloud_tea_openapi.utils import Utils
from darabonba.request import DaraRequest
from pydantic import SecretStr

from server.core.errors import AppError, Conflict, Forbidden, Invalid, NotFound, Unavailable
from server.training.cloud import JobRequest, PaiCredentials, PaiDlcClient, PaiDlcSettings
from tests.fakes.paidlc import Emulator

from .conftest import BUCKET, push_project


def test_unknown_access_key_is_a_clear_auth_error(dlc_settings: PaiDlcSettings) -> None:
    wrong = PaiCredentials(access_key_id="LTAInobody", access_key_secret=SecretStr("s3cr3t-value"))
    with pytest.raises(Forbidden) as caught:
        PaiDlcClient(dlc_settings, wrong).list_ecs_specs()
    err = caught.value
    assert err.extra["cloud_code"] == "InvalidAccessKeyId.NotFound"
    assert err.code == "cloud_auth" and "access key" in err.detail.lower()
    assert err.extra["request_id"] and err.extra["request_id"] in err.detail


def test_wrong_secret_is_refused_and_never_echoed(dlc_settings: PaiDlcSettings, emulator: Emulator) -> None:
    wrong = PaiCredentials(
        access_key_id=emulator.access_key_id, access_key_secret=SecretStr("wrong-secret-value")
    )
    dlc = PaiDlcClient(dlc_settings, wrong)
    with pytest.raises(Forbidden) as caught:
        dlc.ensure_code_source("file:///nowhere.git", "main")
    assert caught.value.extra["cloud_code"] == "SignatureDoesNotMatch"
    assert "wrong-secret-value" not in caught.value.detail
    assert "wrong-secret-value" not in repr(wrong) + str(wrong) + repr(dlc)


def test_invalid_ecs_spec_is_an_invalid_parameter(dlc: PaiDlcClient, tmp_path) -> None:
    remote = push_project(tmp_path, {"run.sh": "true\n"})
    source = dlc.ensure_code_source(remote.url, "main")
    with pytest.raises(Invalid) as caught:
        dlc.create_job(
            JobRequest(
                display_name="x",
                command="bash run.sh",
                code_source_id=source,
                commit=remote.commit,
                output_prefix="x/",
                ecs_spec="ecs.no-such-type",
            )
        )
    err = caught.value
    assert err.extra["cloud_code"] == "InvalidParameter"
    assert "ecs.no-such-type" in err.detail and err.extra["request_id"] in err.detail


@pytest.mark.parametrize(
    ("status", "code", "error", "app_code"),
    [
        (400, "Throttling.User", Unavailable, "cloud_throttled"),
        (400, "QuotaExceeded.GPU", Conflict, "cloud_quota"),
        (403, "Forbidden.RAM", Forbidden, "cloud_forbidden"),
        (503, "ServiceUnavailable", Unavailable, "cloud_error"),
    ],
)
def test_service_failures_map_to_clear_errors(
    dlc: PaiDlcClient, emulator: Emulator, status: int, code: str, error: type[AppError], app_code: str
) -> None:
    emulator.inject_fault("ListEcsSpecs", status, code, "The service says no.")
    with pytest.raises(error) as caught:
        dlc.list_ecs_specs()
    err = caught.value
    assert (err.code, err.extra["cloud_code"]) == (app_code, code)
    assert "The service says no" in err.detail and err.extra["request_id"] in err.detail
    assert dlc.list_ecs_specs()  # one-off: the next call works


def test_unknown_job_is_not_found(dlc: PaiDlcClient) -> None:
    with pytest.raises(NotFound) as caught:
        dlc.get_job("dlcdoesnotexist")
    assert caught.value.extra["request_id"]


def test_ecs_specs_are_listed(dlc: PaiDlcClient) -> None:
    specs = {s.instance_type: s for s in dlc.list_ecs_specs()}
    assert specs["ecs.c6.large"].cpu == 2
    assert all(s.accelerator_type == "GPU" for s in dlc.list_ecs_specs("GPU"))


def test_unreachable_endpoint_is_unavailable(
    dlc_settings: PaiDlcSettings, credentials: PaiCredentials
) -> None:
    with socket.socket() as sock:  # a port that is closed once the socket goes
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dead = dlc_settings.model_copy(update={"endpoint": f"127.0.0.1:{port}"})
    with pytest.raises(Unavailable) as caught:
        PaiDlcClient(dead, credentials).list_ecs_specs()
    assert "cannot reach" in caught.value.detail


def test_endpoint_with_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="without a scheme"):
        PaiDlcSettings(endpoint="http://127.0.0.1:1")


def _signed_acs_get(emulator: Emulator, query: dict[str, str]) -> dict[str, str]:
    req = DaraRequest()
    req.method, req.pathname, req.query = "GET", "/api/v1/ecsspecs", query
    req.headers = {
        "host": emulator.endpoint,
        "x-acs-version": "2020-12-03",
        "x-acs-action": "ListEcsSpecs",
        "x-acs-date": Utils.get_timestamp(),
        "x-acs-signature-nonce": Utils.get_nonce(),
        "accept": "application/json",
        "x-acs-content-sha256": hashlib.sha256(b"").hexdigest(),
    }
    req.headers["Authorization"] = Utils.get_authorization(
        req,
        "ACS3-HMAC-SHA256",
        req.headers["x-acs-content-sha256"],
        emulator.access_key_id,
        emulator.access_key_secret,
    )
    return req.headers


def _send(emulator: Emulator, method: str, path: str, headers: dict[str, str]):
    conn = http.client.HTTPConnection(emulator.endpoint, timeout=10)
    try:
        conn.request(method, path, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_tampered_acs_request_is_refused(emulator: Emulator) -> None:
    headers = _signed_acs_get(emulator, {"PageSize": "10"})
    status, body = _send(emulator, "GET", "/api/v1/ecsspecs?PageSize=11", headers)
    assert status == 400 and b'"SignatureDoesNotMatch"' in body and b"RequestId" in body
    extra = {**headers, "x-acs-security-token": "smuggled"}  # an unsigned x-acs-* header
    status, body = _send(emulator, "GET", "/api/v1/ecsspecs?PageSize=10", extra)
    assert status == 400 and b'"IncompleteSignature"' in body
    status, _ = _send(emulator, "GET", "/api/v1/ecsspecs?PageSize=10", headers)
    assert status == 200
    status, body = _send(emulator, "GET", "/api/v1/ecsspecs?PageSize=10", headers)
    assert status == 400 and b"SignatureNonceUsed" in body  # a replay is refused too


def test_tampered_oss_request_is_refused(emulator: Emulator) -> None:
    emulator.store.put(BUCKET, "secret/a.txt", b"a")
    emulator.store.put(BUCKET, "secret/b.txt", b"b")
    url = f"{emulator.oss_endpoint}/{BUCKET}/secret/a.txt"
    request = HttpRequest("GET", url, headers={})
    SignerV4().sign(
        SigningContext(
            product="oss",
            region="cn-hangzhou",
            bucket=BUCKET,
            key="secret/a.txt",
            request=request,
            credentials=Credentials(emulator.access_key_id, emulator.access_key_secret),
        )
    )
    headers = dict(request.headers)
    status, body = _send(emulator, "GET", f"/{BUCKET}/secret/a.txt", headers)
    assert (status, body) == (200, b"a")
    status, body = _send(emulator, "GET", f"/{BUCKET}/secret/b.txt", headers)
    assert status == 403 and b"<Code>SignatureDoesNotMatch</Code>" in body
    assert b"<RequestId>" in body

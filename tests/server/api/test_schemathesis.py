"""Schemathesis over every operation of ``app.openapi()``: what the server answers must match the
document (status codes, error shape, response bodies), and no input may cause a 500.

Operations come from the app's own schema, so routes added later are fuzzed too. The server is a
real one on loopback; project-scoped operations get a real project id most of the time, so they
reach the services instead of stopping at 404. The fuzzer acts as the local admin, so the run is
fenced in: nothing in the server process may open a socket off loopback, child processes get a
dead loopback proxy and no package index, and new projects are never opened on an existing folder.
"""

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.specs.openapi import checks

from server.core.config import REPO_ROOT, Settings
from tests.conftest import LiveServer, start_live_server

DEAD_PROXY = "http://127.0.0.1:9"
CHILD_ENV = {
    **{name: DEAD_PROXY for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                     "ALL_PROXY", "all_proxy")},
    "PIP_NO_INDEX": "1", "NO_PROXY": "", "no_proxy": "",
}
EXAMPLES = 3
# The services validate beyond the schema (a name that is taken or has a character a folder name
# cannot have is a 422), and pydantic takes lax input on purpose ("1" for a boolean), so the two
# checks that expect the schema alone to decide acceptance do not apply; every other check does.
BUSINESS_RULE_CHECKS = [checks.positive_data_acceptance, checks.negative_data_rejection]


def _loopback(host: Any) -> bool:
    if host in (None, "", "localhost"):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(scope="module")
def fenced() -> Iterator[None]:
    """Refuse every name lookup and connection that would leave this machine."""
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _loopback(host.decode() if isinstance(host, bytes) else host):
            raise socket.gaierror(socket.EAI_NONAME, "only loopback is reachable in this test")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(sock: socket.socket, address: Any) -> Any:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
            raise ConnectionRefusedError("only loopback is reachable in this test")
        return real_connect(sock, address)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        patch.setattr(socket.socket, "connect", connect)
        for name, value in CHILD_ENV.items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="module")
def fuzzed(fenced: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, int]]:
    settings_ = Settings(data_dir=tmp_path_factory.mktemp("fuzz") / "data",
                         webui_dist=REPO_ROOT / "webui" / "dist", watch_files=False)
    live, thread = start_live_server(settings_)
    try:
        with httpx.Client(trust_env=False) as http:  # the proxy variables are for child processes
            created = http.post(f"{live.url}/api/projects", headers=live.auth,
                                json={"name": "fuzzed", "template": "empty"})
        assert created.status_code == 201, created.text
        yield live, created.json()["id"]
    finally:
        live.server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        session.trust_env = False  # the proxy variables are for child processes
        yield session


@pytest.fixture(scope="module")
def api_schema(fuzzed: tuple[LiveServer, int]) -> Any:
    live, _ = fuzzed
    return schemathesis.openapi.from_dict(live.server.config.app.openapi())


schema = schemathesis.pytest.from_fixture("api_schema")


def _aimed(case: Any, project_id: int) -> None:
    """Point most cases at the real project; never let a new project open an existing folder."""
    if case.path_parameters and "pid" in case.path_parameters and hash(repr(case.body)) % 4:
        case.path_parameters["pid"] = project_id
    if case.method == "POST" and case.path == "/api/projects" and isinstance(case.body, dict):
        case.body.pop("path", None)


@schema.parametrize()
@pytest.mark.timeout(400)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_documented(case: Any, fuzzed: tuple[LiveServer, int],
                                               http: requests.Session) -> None:
    live, project_id = fuzzed
    _aimed(case, project_id)
    case.call_and_validate(base_url=live.url, session=http, headers=live.auth, timeout=30,
                           excluded_checks=BUSINESS_RULE_CHECKS)

"""Schemathesis over every operation of ``app.openapi()``: what the server answers must match the
document (status codes, error shape, response bodies, content types), and no input may cause a 500.

Operations come from the app's own schema, so routes added later are fuzzed too. Each gets
schemathesis's coverage cases (every bound of every parameter, just inside and just outside: a
string of exactly ``maxLength``, a number past its maximum) and a few generated ones; the run
prints how many cases it made and fails if an operation got none. The server is a real one on
loopback; project-scoped operations get a real project id most of the time, so they reach the
services instead of stopping at 404. The fuzzer acts as the local admin, so the run is fenced in:
nothing in the server process may open a socket off loopback, child processes get a dead
loopback proxy and no package index, and new projects are never opened on an existing folder.
"""

import ipaddress
import socket
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.specs.openapi import checks

from server.core.config import REPO_ROOT, Settings
from tests.conftest import LiveServer, seed_builtins, start_live_server

DEAD_PROXY = "http://127.0.0.1:9"
CHILD_ENV = {
    **{name: DEAD_PROXY for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                     "ALL_PROXY", "all_proxy")},
    "PIP_NO_INDEX": "1", "NO_PROXY": "", "no_proxy": "",
}
EXAMPLES = 3
# About 3,300 cases are made over about 120 operations; far fewer means the run did not happen.
MIN_CASES = 2000
STATEFUL_SCENARIOS = 10
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
def fuzzed(fenced: None, tmp_path_factory: pytest.TempPathFactory, builtin_build: Path
           ) -> Iterator[tuple[LiveServer, str]]:
    settings_ = Settings(data_dir=tmp_path_factory.mktemp("fuzz") / "data",
                         webui_dist=REPO_ROOT / "webui" / "dist", watch_files=False)
    seed_builtins(settings_, builtin_build)
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
def api_schema(fuzzed: tuple[LiveServer, str]) -> Any:
    live, _ = fuzzed
    return schemathesis.openapi.from_dict(live.server.config.app.openapi())


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture
def tally(api_schema: Any) -> Iterator[Counter[str]]:
    """Cases per operation, printed at the end; every operation must have had some."""
    cases: Counter[str] = Counter()
    started = time.monotonic()
    yield cases
    total = sum(cases.values())
    print(f"\nschemathesis: {total} cases over {len(cases)} operations in "
          f"{time.monotonic() - started:.0f} s")
    operations = {result.ok().label for result in api_schema.get_all_operations()}
    assert not operations - set(cases), f"operations never called: {sorted(operations - set(cases))}"
    assert total >= MIN_CASES, f"only {total} cases"


def _fenced_case(case: Any) -> None:
    """Never let a new project open an existing folder of this machine."""
    if case.method == "POST" and case.path == "/api/projects" and isinstance(case.body, dict):
        case.body.pop("path", None)


def _aimed(case: Any, project_id: str, index: int) -> None:
    """Point most cases at the real project (three of every four of an operation, by the case's
    place in its operation's run), so they reach the services. Chosen by place, not by the body:
    the repr of the coverage phase's largest bodies (137 MB) cost seconds per case."""
    if case.path_parameters and "pid" in case.path_parameters and index % 4:
        case.path_parameters["pid"] = project_id
    _fenced_case(case)


@schema.parametrize()
@pytest.mark.timeout(400)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate],  # explicit: the coverage cases
          suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_documented(case: Any, fuzzed: tuple[LiveServer, str],
                                               http: requests.Session, tally: Counter[str]) -> None:
    live, project_id = fuzzed
    _aimed(case, project_id, tally[case.operation.label])
    tally[case.operation.label] += 1
    case.call_and_validate(base_url=live.url, session=http, headers=live.auth, timeout=30,
                           excluded_checks=BUSINESS_RULE_CHECKS)


@pytest.mark.timeout(400)
def test_sequences_of_calls_follow_the_documented_links(
    api_schema: Any, fuzzed: tuple[LiveServer, str], http: requests.Session
) -> None:
    """Stateful: what one call creates (a project, a job, a branch, a remote) is used by the next
    calls through the document's links (``server/api/openapi.py`` adds those of creations)."""
    live, _ = fuzzed
    created: set[str] = set()
    followed: list[str] = []

    class Scenario(api_schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case: Any) -> None:
            _fenced_case(case)

        def after_call(self, response: Any, case: Any) -> None:
            if case.method == "POST" and case.path == "/api/projects" and response.status_code == 201:
                created.add(response.json()["id"])
            elif (case.path_parameters or {}).get("pid") in created:
                followed.append(f"{case.method} {case.path} → {response.status_code}")

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"base_url": live.url, "session": http, "headers": live.auth, "timeout": 30}

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None,
                              **kwargs: Any) -> None:
            case.validate_response(response, excluded_checks=BUSINESS_RULE_CHECKS,
                                   headers=live.auth, transport_kwargs=kwargs)

    Scenario.run(settings=settings(max_examples=STATEFUL_SCENARIOS, stateful_step_count=6,
                                   deadline=None, derandomize=True, database=None,
                                   phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    assert followed, "no scenario called an operation on a project it had created"

"""No pattern stalls the server or answers falsely: a regular expression that backtracks for ever
is a ``422 regex_too_slow`` in search, replace preview and apply while the server goes on
answering; a pattern git's PCRE gives up on is a named 422, never an empty answer; a NUL in any
input is a 422 in the one error shape."""

import contextlib
import json
import subprocess
import threading
from pathlib import Path

import httpx
import psutil
import pytest

from server.search import engine, service
from tests.waiting import process_running, wait_until

# Each test is over in seconds; a matcher holding the server would never be (pytest-timeout).
pytestmark = pytest.mark.timeout(90)

# Git finds "ab" at the start of each line at once; Python's re, asked for every match, then
# tries (a+)+b at each of the 30,000 later places, each in exponential time.
CATASTROPHIC = "(a+)+b"
RUN = "ab" + "a" * 30_000 + "\n"


def _url(project: dict, tail: str = "") -> str:
    return f"/api/projects/{project['id']}/search{tail}"


def _error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code and isinstance(body["detail"], str), body
    return body


@pytest.fixture
def runs(project) -> Path:
    root = Path(project["path"])
    for index in range(20):
        (root / f"run{index}.txt").write_text(RUN)
    return root


def test_a_catastrophic_regex_is_a_422_in_search_preview_and_apply(client, project, runs):
    _error(client.get(_url(project), params={"q": CATASTROPHIC, "regex": "true"}), 422, "regex_too_slow")
    asked = {"q": CATASTROPHIC, "regex": True, "replacement": "x"}
    _error(client.post(_url(project, "/replace/preview"), json=asked), 422, "regex_too_slow")
    plain = client.post(_url(project, "/replace/preview"), json={"q": "ab", "replacement": "x"})
    targets = [{"path": f["path"], "etag": f["etag"]} for f in plain.json()["files"]]
    assert len(targets) == 20
    _error(client.post(_url(project, "/replace"), json={**asked, "files": targets}), 422, "regex_too_slow")
    # Every new text is made before the first is written: no file was changed.
    assert all(path.read_text() == RUN for path in runs.glob("run*.txt"))


def test_previewing_named_files_with_long_runs_is_a_422(client, project):
    root = Path(project["path"])
    for index in range(20):
        (root / f"only{index}.txt").write_text("a" * 30_000 + "\n")
    asked = {"q": CATASTROPHIC, "regex": True, "replacement": "x",
             "paths": [f"only{index}.txt" for index in range(20)]}
    _error(client.post(_url(project, "/replace/preview"), json=asked), 422, "regex_too_slow")
    # Git itself rules these lines out at once: the search's true answer is no match.
    search = client.get(_url(project), params={"q": CATASTROPHIC, "regex": "true"})
    assert search.status_code == 200
    assert [json.loads(line) for line in search.text.splitlines()] == [
        {"kind": "end", "count": 0, "truncated": False}]


def _busy_worker() -> psutil.Process | None:
    """This process's matching worker, once it has spent a while matching."""
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "server.search.worker" in " ".join(child.cmdline()) and child.cpu_times().user > 0.3:
                return child
    return None


def test_the_server_answers_while_a_catastrophic_regex_is_matched(live_server, monkeypatch):
    # Two seconds of CPU instead of one: the matching surely still runs when health is asked,
    # however loaded the machine.
    monkeypatch.setattr(engine, "CPU_SECONDS", 2.0)
    with httpx.Client(base_url=live_server.url, headers=live_server.auth, timeout=60) as api:
        project = api.post("/api/projects", json={"name": "slow", "git": False}).json()
        for index in range(20):
            Path(project["path"], f"run{index}.txt").write_text(RUN)
    answers: list[httpx.Response] = []

    def search() -> None:
        with httpx.Client(base_url=live_server.url, headers=live_server.auth, timeout=60) as api:
            answers.append(api.get(_url(project), params={"q": CATASTROPHIC, "regex": "true"}))

    searching = threading.Thread(target=search)
    searching.start()
    try:
        worker = wait_until(_busy_worker, what="the matching worker to be busy")
        health = httpx.get(f"{live_server.url}/api/health", timeout=60)
        # Answered while the search was still being matched, not after it.
        assert process_running(worker.pid) and searching.is_alive()
        assert health.status_code == 200 and health.json()["status"] == "ok"
    finally:
        searching.join(timeout=60)
    _error(answers[0], 422, "regex_too_slow")


@pytest.mark.parametrize("repository", [False, True])
@pytest.mark.parametrize("pattern", [r"(a|aa)+$", r"(\w+)+\d"])
def test_a_pattern_git_gives_up_on_is_a_named_422_not_an_empty_answer(client, project, pattern, repository):
    root = Path(project["path"])
    (root / "long.txt").write_text("a" * 30_000 + "\n")
    if repository:  # git grep --untracked first; its failure must not fall through to --no-index
        subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    body = _error(client.get(_url(project), params={"q": pattern, "regex": "true"}), 422, "regex_too_complex")
    assert body["detail"].startswith("git grep gave up on the pattern: ") and "limit" in body["detail"]
    asked = {"q": pattern, "regex": True, "replacement": "x"}
    _error(client.post(_url(project, "/replace/preview"), json=asked), 422, "regex_too_complex")


def test_a_pattern_python_takes_and_pcre_refuses_is_a_bad_regex(client, project):
    Path(project["path"], "a.txt").write_text("abc\n")
    body = _error(client.get(_url(project), params={"q": r"(?a)\w+", "regex": "true"}), 422, "bad_regex")
    assert body["detail"].startswith("git grep -P refuses the pattern: ")


NUL_SEARCHES = [{"q": "a\0b"}, {"q": "a", "glob": "*.py\0"}]
NUL_PREVIEWS = [{"q": "a\0"}, {"replacement": "x\0"}, {"glob": "\0"}, {"paths": ["a\0.txt"]}]
NUL_APPLIES = [{"q": "\0"}, {"replacement": "\0"}, {"glob": "*\0"},
               {"files": [{"path": "a\0.txt", "etag": "0" * 32}]},
               {"files": [{"path": "a.txt", "etag": "\0"}]}]


@pytest.mark.parametrize("params", NUL_SEARCHES)
def test_a_nul_in_a_search_is_a_422(client, project, params):
    body = _error(client.get(_url(project), params=params), 422, "invalid")
    assert "NUL" in body["detail"]


@pytest.mark.parametrize("fields", NUL_PREVIEWS)
def test_a_nul_in_a_replace_preview_is_a_422(client, project, fields):
    asked = {"q": "a", "replacement": "b", **fields}
    body = _error(client.post(_url(project, "/replace/preview"), json=asked), 422, "invalid")
    assert "NUL" in body["detail"]


@pytest.mark.parametrize("fields", NUL_APPLIES)
def test_a_nul_in_a_replace_is_a_422(client, project, fields):
    Path(project["path"], "a.txt").write_text("a\n")
    asked = {"q": "a", "replacement": "b", "files": [{"path": "a.txt", "etag": "0" * 32}], **fields}
    assert "NUL" in _error(client.post(_url(project, "/replace"), json=asked), 422, "invalid")["detail"]
    assert Path(project["path"], "a.txt").read_text() == "a\n"


def _lines(client, project, **params) -> list[dict]:
    response = client.get(_url(project), params=params)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


def test_plain_text_matched_in_the_worker_is_matched_as_in_the_server(client, project, monkeypatch):
    root = Path(project["path"])
    (root / "a.txt").write_text("Needle and needle\nnone\nNEEDLE: héllo needle\n")
    (root / "b.md").write_text("é" * 50 + "needle" + "x" * 300 + "\n")
    for params in ({"q": "needle"}, {"q": "needle", "case": "true"}, {"q": "needle", "word": "true"}):
        here = _lines(client, project, **params)
        assert here[-1]["count"] >= 2
        # A budget of no steps: the lines go to the worker from the first read of Git's output.
        monkeypatch.setattr(service, "IN_PROCESS_STEPS", 0)
        assert _lines(client, project, **params) == here
        monkeypatch.undo()


def test_a_regex_replacement_keeps_its_groups(client, project):
    Path(project["path"], "g.txt").write_text("key=value\n")
    for replacement, after in [("$2=$1", "value=key"), (r"\2:\1", "value:key"), ("[$&]", "[key=value]")]:
        asked = {"q": r"(\w+)=(\w+)", "regex": True, "replacement": replacement, "glob": "g.txt"}
        (preview,) = client.post(_url(project, "/replace/preview"), json=asked).json()["files"]
        assert preview["changes"] == [{"line": 1, "before": "key=value", "after": after}]
    asked = {"q": r"(\w+)=(\w+)", "regex": True, "replacement": "$3", "glob": "g.txt"}
    _error(client.post(_url(project, "/replace/preview"), json=asked), 422, "bad_replacement")

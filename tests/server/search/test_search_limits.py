"""A NUL in any input of search and replace is a 422 in the one error shape (git takes its
arguments as C strings)."""

from pathlib import Path

import httpx
import pytest


def _url(project: dict, tail: str = "") -> str:
    return f"/api/projects/{project['id']}/search{tail}"


def _error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code and isinstance(body["detail"], str), body
    return body


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

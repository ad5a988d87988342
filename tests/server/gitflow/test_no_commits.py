"""Reads on a repository whose branch has no commits yet are a 404 ``no_commits``, not a 500."""

import pytest

FIRST_COMMIT = {"message": "one", "author": "Ada <ada@example.com>"}


@pytest.fixture
def git_api(client, project) -> str:
    base = f"/api/projects/{project['id']}/git"
    assert client.post(f"{base}/init").status_code == 201
    return base


@pytest.mark.parametrize("read", [
    "blob?rev=HEAD&path=README.md",
    "blob?rev=HEAD%5E&path=README.md",
    "blob?rev=main&path=README.md",
    "log?ref=HEAD",
    "log?ref=main",
    "commits/HEAD",
    "commits/HEAD/diff?path=README.md",
])
def test_reads_of_a_revision_answer_no_commits(client, git_api, read):
    response = client.get(f"{git_api}/{read}")
    assert response.status_code == 404, response.text
    assert response.json()["code"] == "no_commits"


def test_what_needs_no_commit_still_answers(client, git_api):
    """The panel's own reads work before the first commit: the history is empty, a staged
    file diffs against nothing."""
    assert client.get(f"{git_api}/log").json() == []
    assert client.post(f"{git_api}/stage", json={"paths": ["README.md"]}).status_code == 200
    staged = client.get(f"{git_api}/diff", params={"path": "README.md", "staged": True}).json()
    assert staged["old"] is None and staged["new"]


def test_an_unknown_revision_once_there_are_commits_is_plain_not_found(client, git_api):
    client.post(f"{git_api}/stage", json={"paths": ["README.md"]})
    assert client.post(f"{git_api}/commit", json=FIRST_COMMIT).status_code == 201
    response = client.get(f"{git_api}/blob", params={"rev": "nosuch", "path": "README.md"})
    assert response.status_code == 404 and response.json()["code"] == "not_found"

"""git run in the terminal signs with the identity set in the Source Control panel, unless the
repository names its own (which wins, as it does for commits made in the UI)."""

from pathlib import Path

from tests.fakes.git_remotes import git
from tests.server.terminal.test_terminal_ws import _url, read_until


def _commit_in_terminal(client, project: dict) -> None:
    """``git commit`` typed in a new terminal, which must succeed."""
    with client.websocket_connect(_url(project)) as ws:
        assert ws.receive_json()["type"] == "hello"
        ws.send_json({"type": "input", "data": "git commit -q --allow-empty -m typed; echo rc=$?\n"})
        assert "rc=0" in read_until(ws, r"rc=\d+", regex=True)
        ws.send_json({"type": "close"})


def test_a_commit_typed_in_the_terminal_has_the_identity_set_in_the_ui(client, project):
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    saved = client.put("/api/git/identity", json={"name": "Grace Hopper", "email": "grace@example.com"})
    assert saved.status_code == 200
    _commit_in_terminal(client, project)
    assert git("log", "-1", "--format=%an <%ae>|%cn <%ce>", cwd=folder).strip() == (
        "Grace Hopper <grace@example.com>|Grace Hopper <grace@example.com>")

    # The repository's own identity wins over the stored one.
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    _commit_in_terminal(client, project)
    assert git("log", "-1", "--format=%an <%ae>", cwd=folder).strip() == "Ada Lovelace <ada@example.com>"

"""Team permissions beyond the route table (``tests/server/test_route_roles.py``, which proves
every route's boundary): what viewers may never do, admins, membership, websockets and folders.
"""

from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from server.api.services import services_of
from server.core.events import Envelope
from tests.server.team.conftest import ROLES, Team
from tests.server.test_route_roles import ROUTE_ROLES

# Acting on these must never be possible for a viewer (docs/team.md, roles).
RUNS_OR_WRITES = [
    ("POST", "/api/projects/{pid}/jobs"),
    ("POST", "/api/projects/{pid}/tools/{tool}"),
    ("POST", "/api/projects/{pid}/git/push"),
    ("POST", "/api/projects/{pid}/git/commit"),
    ("PUT", "/api/projects/{pid}/files/content"),
    ("POST", "/api/projects/{pid}/devices/{did}/sessions"),
    ("POST", "/api/projects/{pid}/runtime/venv"),
]
WS = "ws://127.0.0.1:8765"
PARAMS = {
    "tool": "inspect",
    "name": "outsider",
    "did": "nodevice",
    "sid": "nosession",
    "index": "0",
    "sha": "0" * 40,
}


def _url(path: str, pid: str) -> str:
    return path.replace("{pid}", pid).format(**PARAMS)


def _call(team: Team, who: str, method: str, url: str) -> Any:
    # An invalid JSON body ([] fits no payload model) keeps allowed calls from doing real work.
    body: list[Any] | None = [] if method in ("POST", "PUT", "PATCH") else None
    return team.client.request(method, url, headers=team.auth(who), json=body)


def _refused(response: Any) -> bool:
    body = response.json() if response.content else None
    code = body.get("code") if isinstance(body, dict) else None
    return (response.status_code, code) in ((404, "no_project"), (403, "role_required"))


def test_a_viewer_cannot_run_code_push_or_write(team: Team):
    pid = team.new_project()
    for method, path in RUNS_OR_WRITES:
        assert ROUTE_ROLES.get((method, path)) in ("editor", "owner"), f"{method} {path}"
        for who in ("viewer", "outsider"):
            assert _refused(_call(team, who, method, _url(path, pid))), (who, method, path)


def test_admin_reaches_every_project_and_outsiders_see_none(team: Team):
    pid = team.new_project()
    listed = {
        who: [p["id"] for p in team.client.get("/api/projects", headers=team.auth(who)).json()]
        for who in ROLES
    }
    assert listed["outsider"] == []
    assert all(listed[who] == [pid] for who in ("viewer", "editor", "owner", "admin"))
    assert team.client.get(f"/api/projects/{pid}", headers=team.auth("admin")).json()["owner"] == "owner"
    shared = team.client.get(f"/api/projects/{pid}", headers=team.auth("viewer")).json()
    assert shared["owner"] == "owner"


def test_members_are_managed_by_owners_and_may_leave(team: Team):
    pid = team.new_project()
    members = team.client.get(f"/api/projects/{pid}/members", headers=team.auth("viewer")).json()
    assert members == [
        {"user": "owner", "role": "owner"},
        {"user": "editor", "role": "editor"},
        {"user": "viewer", "role": "viewer"},
    ]
    promote = team.client.put(
        f"/api/projects/{pid}/members/viewer", json={"role": "editor"}, headers=team.auth("editor")
    )
    assert promote.status_code == 403
    creator = team.client.put(
        f"/api/projects/{pid}/members/owner", json={"role": "viewer"}, headers=team.auth("admin")
    )
    assert creator.status_code == 422
    leave = team.client.delete(f"/api/projects/{pid}/members/viewer", headers=team.auth("viewer"))
    assert leave.status_code == 204
    gone = team.client.get(f"/api/projects/{pid}", headers=team.auth("viewer"))
    assert gone.status_code == 404


def _ws_refused(team: Team, who: str, pid: str) -> bool:
    """Whether the project socket is refused: accepted, then closed with 1008 and the reason."""
    with team.client.websocket_connect(f"{WS}/api/projects/{pid}/ws", headers=team.auth(who)) as ws:
        try:
            return ws.receive_json()["type"] != "hello"
        except WebSocketDisconnect as closed:
            assert (closed.code, closed.reason) == (1008, "no such project")
            return True


@pytest.mark.parametrize("who", ROLES)
def test_websocket_access_follows_membership(team: Team, who: str):
    pid = team.new_project()
    assert _ws_refused(team, who, pid) == (who == "outsider")


def test_only_editors_may_send_commands_on_the_websocket(team: Team):
    pid = team.new_project()
    received: list[str] = []

    async def stdin(project_id: str, envelope: Envelope) -> None:
        received.append(envelope.data["who"])

    services_of(team.client.app).tab_commands["log"] = stdin
    for who in ("viewer", "editor"):
        with team.client.websocket_connect(f"{WS}/api/projects/{pid}/ws", headers=team.auth(who)) as ws:
            assert ws.receive_json()["type"] == "hello"
            ws.send_json({"v": 1, "seq": 0, "channel": "log", "type": "stdin", "data": {"who": who}})
            ws.send_json({"v": 1, "seq": 0, "channel": "sys", "type": "pong", "data": {}})
            if who == "viewer":
                assert ws.receive_json()["type"] == "error"
    assert received == ["editor"]


def test_one_users_tab_does_not_receive_another_projects_events(team: Team):
    mine = team.new_project("mine")
    theirs = team.client.post("/api/projects", json={"name": "theirs"}, headers=team.auth("outsider")).json()[
        "id"
    ]
    assert _ws_refused(team, "owner", theirs)
    with team.client.websocket_connect(f"{WS}/api/projects/{mine}/ws", headers=team.auth("owner")) as ws:
        assert ws.receive_json()["type"] == "hello"
        hub = services_of(team.client.app).hub
        hub.publish(theirs, "files", "changed", {"path": "secret.txt"})
        hub.publish(mine, "files", "changed", {"path": "mine.txt"})
        event = ws.receive_json()
        assert event["data"] == {"path": "mine.txt"}


def test_runs_addressed_by_their_own_id_follow_the_project(team: Team):
    from server.modeltools.models import ToolRun
    from server.training.models import Job

    pid = team.new_project()
    with team.session() as session:
        run = ToolRun(project_id=pid, tool="inspect", status="succeeded", log_path="/nonexistent")
        job = Job(project_id=pid, backend="local", command="true", status="succeeded")
        session.add_all([run, job])
        session.commit()
        rid, jid = run.id, job.id
    urls = [f"/api/tool-runs/{rid}", f"/api/tool-runs/{rid}/log", f"/api/jobs/{jid}",
            f"/api/jobs/{jid}/logs", f"/api/jobs/{jid}/metrics"]
    for url in urls:
        outsider = team.client.get(url, headers=team.auth("outsider"))
        assert (outsider.status_code, outsider.json()["code"]) == (404, "no_project"), url
        assert not _refused(team.client.get(url, headers=team.auth("viewer"))), url


def test_members_cannot_open_server_folders_or_local_repositories(team: Team, tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    for body, code in (({"name": "a", "path": str(folder)}, "admin_only"),
                       ({"name": "b", "git_url": str(folder)}, "git_url_forbidden"),
                       ({"name": "c", "git_url": f"file://{folder}"}, "git_url_forbidden")):
        refused = team.client.post("/api/projects", json=body, headers=team.auth("owner"))
        assert (refused.status_code, refused.json()["code"]) == (403, code), body
    opened = team.client.post("/api/projects", json={"name": "a", "path": str(folder)},
                              headers=team.auth("admin"))
    assert opened.status_code == 201


def test_each_member_has_a_folder_of_their_own(team: Team):
    paths = []
    for who in ("owner", "outsider"):
        made = team.client.post("/api/projects", json={"name": "demo"}, headers=team.auth(who))
        assert made.status_code == 201
        paths.append(made.json()["path"])
    assert paths[0].endswith("/owner/demo") and paths[1].endswith("/outsider/demo")


def test_each_member_keeps_their_own_ui_state(team: Team):
    pid = team.new_project()
    url = f"/api/projects/{pid}/ui-state"
    for who in ("owner", "viewer"):
        saved = team.client.put(url, json={"state": {"layout": who}}, headers=team.auth(who))
        assert saved.status_code == 200, saved.text
    for who in ("owner", "viewer"):
        assert team.client.get(url, headers=team.auth(who)).json() == {"state": {"layout": who}}
    assert team.client.get(url, headers=team.auth("editor")).json() == {"state": {}}

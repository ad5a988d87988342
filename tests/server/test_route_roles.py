"""Every served route and the role it needs, as one fixed table; the test proves each boundary.

The table is written by hand, not read from each route's own dependencies: a route that loses its
check, or a new route nobody placed here, fails. Roles:

* ``public``: no credentials (the bridge authenticates in its first message; login is open).
* ``signed-in``: any user; what they see is filtered by the service.
* ``admin``: team administrators only.
* ``viewer`` < ``editor`` < ``owner``: a role on the project the path names (``{pid}``, or the
  project of the job ``{jid}`` or tool run ``{rid}``); outsiders get 404, lower roles 403.
* ``device-owner``: the user who paired the device ``{did}`` (and admins); others get 404.
* ``device-credential``: a pairing code or device token only; no user's credential opens it.
"""

import itertools
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocketDisconnect

from server.devices.models import Device
from server.modeltools.models import ToolRun
from server.training.models import Job
from server.users.models import User
from tests.conftest import seed_builtins
from tests.server.team.conftest import Team, start_team, team_settings

ROUTE_ROLES: dict[tuple[str, str], str] = {
    ("GET", "/openapi.json"): "signed-in",
    ("GET", "/docs"): "signed-in",
    ("GET", "/docs/oauth2-redirect"): "signed-in",
    ("GET", "/redoc"): "signed-in",
    ("GET", "/api/health"): "public",
    ("GET", "/api/auth/me"): "signed-in",
    ("GET", "/api/sandbox"): "signed-in",
    ("GET", "/api/templates"): "signed-in",
    ("GET", "/api/projects"): "signed-in",
    ("POST", "/api/projects"): "signed-in",
    ("POST", "/api/projects/zip"): "signed-in",
    ("GET", "/api/projects/{pid}"): "viewer",
    ("PATCH", "/api/projects/{pid}"): "editor",
    ("DELETE", "/api/projects/{pid}"): "owner",
    ("GET", "/api/projects/{pid}/ui-state"): "viewer",
    ("PUT", "/api/projects/{pid}/ui-state"): "viewer",
    ("GET", "/api/projects/{pid}/files"): "viewer",
    ("GET", "/api/projects/{pid}/files/content"): "viewer",
    ("PUT", "/api/projects/{pid}/files/content"): "editor",
    ("POST", "/api/projects/{pid}/files/ops"): "editor",
    ("POST", "/api/projects/{pid}/files/upload"): "editor",
    ("GET", "/api/projects/{pid}/files/raw"): "viewer",
    ("GET", "/api/projects/{pid}/jobs"): "viewer",
    ("POST", "/api/projects/{pid}/jobs"): "editor",
    ("GET", "/api/projects/{pid}/jobs/marked"): "viewer",
    ("PUT", "/api/projects/{pid}/jobs/marked"): "editor",
    ("DELETE", "/api/projects/{pid}/jobs/marked"): "editor",
    ("GET", "/api/jobs/{jid}"): "viewer",
    ("POST", "/api/jobs/{jid}/stop"): "editor",
    ("POST", "/api/jobs/{jid}/rerun"): "editor",
    ("GET", "/api/jobs/{jid}/logs"): "viewer",
    ("GET", "/api/jobs/{jid}/metrics"): "viewer",
    ("GET", "/api/projects/{pid}/runtime"): "viewer",
    ("PUT", "/api/projects/{pid}/runtime"): "editor",
    ("POST", "/api/projects/{pid}/runtime/venv"): "editor",
    ("GET", "/api/settings/pai-dlc"): "signed-in",
    ("PUT", "/api/settings/pai-dlc"): "admin",
    ("GET", "/api/settings/pai-dlc/ecs-specs"): "signed-in",
    ("GET", "/api/training/backends"): "signed-in",
    ("GET", "/api/settings/ray"): "signed-in",
    ("PUT", "/api/settings/ray"): "admin",
    ("GET", "/api/projects/{pid}/ray-settings"): "viewer",
    ("PUT", "/api/projects/{pid}/ray-settings"): "editor",
    ("GET", "/api/projects/{pid}/sweeps"): "viewer",
    ("POST", "/api/projects/{pid}/sweeps"): "editor",
    ("POST", "/api/jobs/{jid}/artifacts/pull"): "editor",
    ("GET", "/api/jobs/{jid}/cloud"): "viewer",
    ("POST", "/api/projects/{pid}/tools/diff"): "editor",
    ("POST", "/api/projects/{pid}/tools/{tool}"): "editor",
    ("GET", "/api/tools/backends"): "signed-in",
    ("GET", "/api/projects/{pid}/model-spec"): "viewer",
    ("PUT", "/api/projects/{pid}/model-spec"): "editor",
    ("POST", "/api/projects/{pid}/files/trash/{trash_id}/restore"): "editor",
    ("GET", "/api/projects/{pid}/backups"): "viewer",
    ("PUT", "/api/projects/{pid}/backups"): "editor",
    ("DELETE", "/api/projects/{pid}/backups"): "editor",
    ("POST", "/api/projects/{pid}/pipelines/run"): "editor",
    ("POST", "/api/projects/{pid}/pipelines/compare"): "viewer",
    ("POST", "/api/projects/{pid}/pipelines/evaluate"): "editor",
    ("GET", "/api/tool-runs/{rid}"): "viewer",
    ("POST", "/api/tool-runs/{rid}/cancel"): "editor",
    ("GET", "/api/projects/{pid}/tool-runs"): "viewer",
    ("GET", "/api/projects/{pid}/lineage"): "viewer",
    ("GET", "/api/projects/{pid}/flow"): "viewer",
    ("GET", "/api/projects/{pid}/datasets"): "viewer",
    ("GET", "/api/projects/{pid}/dataset"): "viewer",
    ("GET", "/api/market"): "signed-in",
    ("GET", "/api/market-sources"): "signed-in",
    ("GET", "/api/market/{id}"): "signed-in",
    ("POST", "/api/market/{id}/versions/{version}/install"): "signed-in",
    ("POST", "/api/projects/{pid}/publish"): "editor",
    ("DELETE", "/api/market/{id}/versions/{version}"): "admin",
    ("POST", "/api/market/{id}/versions/{version}/deprecate"): "admin",
    ("POST", "/api/market/registry/{id}/owner"): "admin",
    ("GET", "/api/tool-runs/{rid}/log"): "viewer",
    ("WS", "/api/projects/{pid}/ws"): "viewer",
    ("GET", "/api/devices"): "signed-in",
    ("GET", "/api/devices/{did}"): "device-owner",
    ("PATCH", "/api/devices/{did}"): "device-owner",
    ("DELETE", "/api/devices/{did}"): "device-owner",
    ("POST", "/api/devices/pairings"): "signed-in",
    ("POST", "/api/devices/{did}/facts/refresh"): "device-owner",
    ("GET", "/api/projects/{pid}/devices/sessions"): "viewer",
    ("POST", "/api/projects/{pid}/devices/{did}/sessions"): "editor",
    ("WS", "/api/ws"): "signed-in",
    ("DELETE", "/api/projects/{pid}/devices/{did}/sessions/{sid}"): "editor",
    ("WS", "/bridge/v1/device"): "public",
    ("GET", "/bridge/v1/agent.pyz"): "device-credential",
    ("GET", "/api/projects/{pid}/git/status"): "viewer",
    ("GET", "/api/projects/{pid}/git/diff"): "viewer",
    ("POST", "/api/projects/{pid}/git/stage"): "editor",
    ("POST", "/api/projects/{pid}/git/unstage"): "editor",
    ("POST", "/api/projects/{pid}/git/discard"): "editor",
    ("POST", "/api/projects/{pid}/git/stage-text"): "editor",
    ("POST", "/api/projects/{pid}/git/discard-text"): "editor",
    ("POST", "/api/projects/{pid}/git/merge"): "editor",
    ("POST", "/api/projects/{pid}/git/commit"): "editor",
    ("GET", "/api/projects/{pid}/git/conflict"): "viewer",
    ("GET", "/api/projects/{pid}/git/blame"): "viewer",
    ("POST", "/api/projects/{pid}/git/resolve"): "editor",
    ("POST", "/api/projects/{pid}/llm/chat"): "editor",
    ("POST", "/api/projects/{pid}/llm/chat/{chat_id}/stop"): "editor",
    ("POST", "/api/projects/{pid}/llm/embed"): "editor",
    ("GET", "/api/projects/{pid}/git/blob"): "viewer",
    ("POST", "/api/projects/{pid}/git/blob-inspect"): "editor",
    ("GET", "/api/projects/{pid}/git/log"): "viewer",
    ("GET", "/api/projects/{pid}/git/commits/{sha}"): "viewer",
    ("GET", "/api/projects/{pid}/git/commits/{sha}/diff"): "viewer",
    ("POST", "/api/projects/{pid}/git/commits/{sha}/cherry-pick"): "editor",
    ("POST", "/api/projects/{pid}/git/commits/{sha}/revert"): "editor",
    ("GET", "/api/projects/{pid}/git/branches"): "viewer",
    ("GET", "/api/projects/{pid}/git/refs"): "viewer",
    ("GET", "/api/projects/{pid}/git/tags"): "viewer",
    ("POST", "/api/projects/{pid}/git/tags"): "editor",
    ("DELETE", "/api/projects/{pid}/git/tags/{name:path}"): "editor",
    ("POST", "/api/projects/{pid}/git/tags/push"): "editor",
    ("POST", "/api/projects/{pid}/git/branches"): "editor",
    ("DELETE", "/api/projects/{pid}/git/branches/{name:path}"): "editor",
    ("POST", "/api/projects/{pid}/git/checkout"): "editor",
    ("GET", "/api/projects/{pid}/git/remotes"): "viewer",
    ("POST", "/api/projects/{pid}/git/remotes"): "editor",
    ("DELETE", "/api/projects/{pid}/git/remotes/{name}"): "editor",
    ("POST", "/api/projects/{pid}/git/fetch"): "editor",
    ("POST", "/api/projects/{pid}/git/pull"): "editor",
    ("POST", "/api/projects/{pid}/git/push"): "editor",
    ("GET", "/api/projects/{pid}/git/credentials"): "viewer",
    ("DELETE", "/api/projects/{pid}/git/credentials/{name}"): "editor",
    ("GET", "/api/projects/{pid}/git/stashes"): "viewer",
    ("POST", "/api/projects/{pid}/git/stashes"): "editor",
    ("POST", "/api/projects/{pid}/git/stashes/{index}/apply"): "editor",
    ("POST", "/api/projects/{pid}/git/stashes/{index}/pop"): "editor",
    ("DELETE", "/api/projects/{pid}/git/stashes/{index}"): "editor",
    ("POST", "/api/projects/{pid}/git/init"): "editor",
    ("GET", "/api/git/identity"): "signed-in",
    ("PUT", "/api/git/identity"): "signed-in",
    ("POST", "/api/auth/login"): "public",
    ("POST", "/api/auth/logout"): "signed-in",
    ("GET", "/api/auth/tokens"): "signed-in",
    ("POST", "/api/auth/tokens"): "signed-in",
    ("DELETE", "/api/auth/tokens/{tid}"): "signed-in",
    ("GET", "/api/users"): "signed-in",
    ("GET", "/api/audit"): "admin",
    ("GET", "/api/projects/{pid}/members"): "viewer",
    ("PUT", "/api/projects/{pid}/members/{name}"): "owner",
    ("DELETE", "/api/projects/{pid}/members/{name}"): "owner",
    ("GET", "/api/devices/{did}/shares"): "device-owner",
    ("PUT", "/api/devices/{did}/shares/{name}"): "device-owner",
    ("DELETE", "/api/devices/{did}/shares/{name}"): "device-owner",
    ("GET", "/netron/"): "signed-in",
    ("GET", "/netron/{name}"): "signed-in",
    ("GET", "/api/projects/{pid}/search"): "viewer",
    ("POST", "/api/projects/{pid}/search/replace/preview"): "viewer",
    ("POST", "/api/projects/{pid}/search/replace"): "editor",
    ("GET", "/api/projects/{pid}/budgets"): "viewer",
    ("GET", "/api/projects/{pid}/budgets/tables"): "viewer",
    ("PUT", "/api/projects/{pid}/budgets"): "editor",
    ("GET", "/api/projects/{pid}/budgets/template"): "viewer",
    ("POST", "/api/projects/{pid}/checks"): "editor",
    ("GET", "/api/projects/{pid}/checks/commits"): "viewer",
    ("WS", "/api/projects/{pid}/terminal"): "admin",
    ("WS", "/api/projects/{pid}/lsp"): "editor",
    ("POST", "/api/projects/{pid}/lsp/edits/preview"): "viewer",
    ("POST", "/api/projects/{pid}/lsp/edits"): "editor",
    ("GET", "/api/editor/settings"): "signed-in",
    ("PUT", "/api/editor/settings"): "signed-in",
    ("GET", "/api/keybindings"): "signed-in",
    ("PUT", "/api/keybindings"): "signed-in",
    ("GET", "/login"): "public",
    ("GET", "/"): "signed-in",
    ("GET", "/p/{pid}"): "signed-in",
    ("MOUNT", "/static"): "public",
}
PROJECT_ROLES = ("viewer", "editor", "owner")
MEMBERS = ("outsider", "viewer", "editor", "owner")
PARAMS = {"tool": "inspect", "name": "outsider", "sid": "nosession", "index": "0", "sha": "0" * 40,
          "id": "nopackage", "version": "0.0.0",
          "tid": "notoken", "chat_id": "nochat", "trash_id": "0000000000000000-00000000"}


def served_routes(routes: list[Any]) -> Iterator[tuple[str, str]]:
    """(method, path) of everything the app serves: HTTP routes, websockets and mounts."""
    for route in routes:
        if hasattr(route, "original_router"):
            yield from served_routes(route.original_router.routes)
        elif isinstance(route, Mount):
            yield "MOUNT", route.path
        elif isinstance(route, WebSocketRoute) or type(route).__name__ == "APIWebSocketRoute":
            yield "WS", route.path
        elif isinstance(route, Route):
            yield from ((m, route.path) for m in sorted(route.methods or ()) if m != "HEAD")


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory, builtin_build: Path) -> Iterator[Team]:
    """One team for the module (each check makes its own project): users and tokens are costly."""
    settings = team_settings(tmp_path_factory.mktemp("roles") / "data")
    seed_builtins(settings, builtin_build)
    yield from start_team(settings)


def test_every_served_route_is_in_the_table(team: Team):
    served = set(served_routes(team.client.app.routes))  # type: ignore[attr-defined]
    assert sorted(served - ROUTE_ROLES.keys()) == [], "served routes missing from ROUTE_ROLES"
    assert sorted(ROUTE_ROLES.keys() - served) == [], "ROUTE_ROLES lists routes no longer served"


def _ids(team: Team, pid: str) -> dict[str, str]:
    """A job, a tool run (in project ``pid``) and a device paired by ``owner``, for the path."""
    with team.session() as session:
        owner = session.exec(select(User).where(User.name == "owner")).one()
        job = Job(project_id=pid, backend="local", command="true", status="succeeded")
        run = ToolRun(project_id=pid, tool="inspect", status="succeeded", log_path="/nonexistent")
        device = Device(name="d", owner_id=owner.id, agent_id="a", token_hash=secrets.token_hex(32))
        session.add_all([job, run, device])
        session.commit()
        return {"pid": pid, "jid": job.id, "rid": run.id, "did": device.id}


def _url(path: str, ids: dict[str, str]) -> str:
    return path.replace("{name:path}", "{name}").format(**PARAMS, **ids)


def _call(team: Team, who: str | None, method: str, url: str, path: str = "") -> Any:
    # An invalid JSON body ([] fits no payload model) keeps allowed calls from doing real work.
    body = BODIES.get((method, path), [] if method in ("POST", "PUT", "PATCH") else None)
    headers = team.auth(who) if who else {"X-MNNWB-CSRF": "1"}
    return team.client.request(method, url, headers=headers, json=body, follow_redirects=False)


def _code(response: Any) -> tuple[int, str | None]:
    try:
        body = response.json()
    except ValueError:
        return response.status_code, None
    return response.status_code, body.get("code") if isinstance(body, dict) else None


PROJECT_REFUSALS = {(404, "no_project"), (403, "role_required")}
REFUSALS = {"signed-in": set(), "admin": {(403, "admin_only")}, "device-owner": {(404, "not_found")},
            **{role: PROJECT_REFUSALS for role in PROJECT_ROLES}}
# Validation runs before these routes reach their check: send a body that passes it.
BODIES: dict[tuple[str, str], Any] = {("PATCH", "/api/devices/{did}"): {"name": "renamed"},
                                      ("PUT", "/api/projects/{pid}/jobs/marked"): {"job_id": "x"}}


def _refused(response: Any, role: str | None = None) -> bool:
    """Refused as ``role`` refuses the wrong user; without a role, refused as a stranger is."""
    if role is not None and role != "device-credential":
        return _code(response) in REFUSALS[role]
    to_login = response.status_code == 303 and "/login" in response.headers["location"]
    return response.status_code == 401 or to_login


def _allowed_and_refused(role: str) -> tuple[str, list[str]]:
    """Who must get through, and who must be refused, for a route needing ``role``."""
    if role in PROJECT_ROLES:
        return role, [who for who in MEMBERS if who == "outsider" or ROLE_RANK[who] < ROLE_RANK[role]]
    if role == "admin":
        return "admin", list(MEMBERS)
    if role == "device-owner":
        return "owner", ["outsider", "viewer", "editor"]
    if role == "device-credential":
        return "", [*MEMBERS, "admin"]
    return "outsider", []


NAMES = (f"p{n}" for n in itertools.count())
ROLE_RANK = {"outsider": 0, "viewer": 1, "editor": 2, "owner": 3}


@pytest.mark.parametrize("method, path", sorted(k for k in ROUTE_ROLES if k[0] not in ("WS", "MOUNT")))
def test_each_http_route_admits_exactly_its_role(team: Team, method: str, path: str):
    role = ROUTE_ROLES[method, path]
    url = _url(path, _ids(team, team.new_project(next(NAMES))))
    if role == "public":
        assert _code(_call(team, None, method, url))[0] != 401, (method, path)
        return
    assert _refused(_call(team, None, method, url, path)), (method, path, "anonymous")
    allowed, refused = _allowed_and_refused(role)
    for who in refused:
        response = _call(team, who, method, url, path)
        assert _refused(response, role), (who, method, path, response.status_code, response.text[:200])
    if allowed:
        response = _call(team, allowed, method, url, path)
        assert response.status_code not in (401, 403) and not _refused(response, role), (
            allowed, method, path, response.status_code, response.text[:200])


def _ws_admitted(team: Team, who: str | None, url: str) -> bool:
    headers = team.auth(who) if who else {}
    try:
        with team.client.websocket_connect("ws://127.0.0.1:8765" + url, headers=headers) as ws:
            return bool(ws.receive_json())
    except WebSocketDisconnect:
        return False


SOCKETS = sorted(p for m, p in ROUTE_ROLES if m == "WS" and ROUTE_ROLES[m, p] != "public")


@pytest.mark.parametrize("path", SOCKETS)
def test_each_project_socket_admits_exactly_its_role(team: Team, path: str):
    url = _url(path, {"pid": team.new_project(next(NAMES))})
    allowed, refused = _allowed_and_refused(ROUTE_ROLES["WS", path])
    assert not _ws_admitted(team, None, url)
    assert [who for who in refused if _ws_admitted(team, who, url)] == []
    assert _ws_admitted(team, allowed, url)

"""Pages: ``/`` (projects) and ``/p/{pid}`` (one project), rendered around the Vite bundle."""

import json
from pathlib import Path
from typing import Any, NamedTuple

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from server import __version__
from server.api.deps import CurrentUser, SessionDep, SettingsDep
from server.api.services import services_of
from server.backups import service as backups
from server.core.errors import AppError
from server.keybindings.service import bindings_of
from server.projects import service as projects
from server.web.first_view import first_view

router = APIRouter(include_in_schema=False)
ENTRY = "src/main.tsx"
_templates = Environment(
    loader=FileSystemLoader(Path(__file__).parent), autoescape=select_autoescape(["html"])
)


# The chunks a page imports at once, in the order to fetch them, after the entry and its imports.
# The project page's first view is the workbench with its open files as plain text that takes
# keys (webui/src/features/editor/EarlyEditor.tsx); Monaco (~580 KB gzipped) is asked for only
# once that view is drawn (webui/src/monaco/load.ts), so the shell does not name its chunks.
PAGE_CHUNKS = {
    "home": ["src/features/home/mountHome.tsx"],
    "project": ["src/features/workbench/mountWorkbench.tsx"],
}


class Bundle(NamedTuple):
    entry: str | None
    css: list[str]
    preload: list[str]


def _bundle(dist: Path, page: str) -> Bundle:
    """The entry script, and the page's own chunks with their imports to fetch beside it."""
    manifest_path = dist / ".vite" / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    chunk = manifest.get(ENTRY)
    if not chunk:
        return Bundle(None, [], [])
    # The entry and its imports first: it asks for the page's data while the rest arrives.
    files: list[str] = [chunk["file"]]
    css = list(chunk.get("css", []))
    pending = list(reversed([*chunk.get("imports", []), *PAGE_CHUNKS.get(page, [])]))
    while pending:
        key = pending.pop()
        part = manifest.get(key)
        if key == ENTRY or not part or part["file"] in files:
            continue
        files.append(part["file"])
        css.extend(c for c in part.get("css", []) if c not in css)
        pending.extend(part.get("imports", []))
    static = "/static/"
    return Bundle(static + chunk["file"], [static + c for c in css], [static + f for f in files])


def render_shell(
    request: Request, title: str, config: dict[str, Any], status: int = 200, cache: str = "no-cache"
) -> HTMLResponse:
    services = services_of(request.app)
    bundle = _bundle(services.settings.webui_dist, config.get("page", ""))
    sandbox_now = services.sandbox.status()
    sandbox = {"state": sandbox_now.state, "reason": sandbox_now.reason,
               "network": sandbox_now.network}
    config = {"version": __version__, "sandbox": sandbox, **config}
    page = _templates.get_template("shell.html")
    html = page.render(title=title, bundle=bundle, config=config)
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": cache})


def safe_next(target: str) -> str:
    """Only a path on this server; anything else (another site, ``//host``) goes home."""
    ok = target.startswith("/") and not target.startswith(("//", "/\\"))
    return target if ok else "/"


@router.get("/login", response_model=None)
def login_page(settings: SettingsDep, next: str = "/") -> HTMLResponse | RedirectResponse:
    if not settings.team:
        return RedirectResponse("/", status_code=303)
    html = _templates.get_template("login.html").render(next=safe_next(next))
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/")
def home(request: Request) -> HTMLResponse:
    return render_shell(request, "Projects", {"page": "home", "project": None, "ws_path": None})


@router.get("/p/{pid}")
def project_page(
    request: Request, pid: str, session: SessionDep, user: CurrentUser
) -> HTMLResponse:
    try:
        project = projects.get_project(session, user, pid)
    except AppError as exc:
        config: dict[str, Any] = {
            "page": "missing", "project": None, "ws_path": None, "error": exc.detail
        }
        return render_shell(request, "Not found", config, status=exc.status)
    if project.state == "cloning":
        config = {"page": "missing", "project": None, "ws_path": None,
                  "error": "this project is still being cloned; the home page opens it when it is done"}
        return render_shell(request, project.name, config, status=409)
    public = projects.to_public(project, user).model_dump(mode="json")
    # A project without Git asks nothing of Git until a repository appears (a `git` event says so).
    has_git = (Path(project.path) / ".git").exists()
    shown = first_view(project.path, projects.ui_state_of(project, user),
                       services_of(request.app).settings.file_read_max_bytes)
    config = {"page": "project", "project": public, "ws_path": f"/api/projects/{pid}/ws", "git": has_git,
              "first_view": shown, "keybindings": bindings_of(session, user.id),
              "backups": backups.marks(session, user.id, project.id)}
    # It carries the person's files: not kept in the browser's cache.
    return render_shell(request, project.name, config, cache="no-store")

"""Pages: ``/`` (projects) and ``/p/{pid}`` (one project), rendered around the Vite bundle."""

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from server import __version__
from server.api.deps import CurrentUser, SessionDep
from server.core.errors import AppError
from server.projects import service as projects

router = APIRouter(include_in_schema=False)
ENTRY = "src/main.tsx"
_templates = Environment(
    loader=FileSystemLoader(Path(__file__).parent), autoescape=select_autoescape(["html"])
)


class BundleFiles(StaticFiles):
    """The built UI: content-hashed assets are cached forever; anything else is revalidated."""

    def file_response(
        self, full_path: Any, stat_result: Any, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        hashed = "/assets/" in str(full_path)
        response.headers["Cache-Control"] = (
            "public, max-age=31536000, immutable" if hashed else "no-cache"
        )
        return response


def _bundle(dist: Path) -> tuple[str | None, list[str]]:
    manifest_path = dist / ".vite" / "manifest.json"
    if not manifest_path.exists():
        return None, []
    chunk = json.loads(manifest_path.read_text()).get(ENTRY)
    if not chunk:
        return None, []
    return "/static/" + chunk["file"], ["/static/" + css for css in chunk.get("css", [])]


def render_shell(
    request: Request, title: str, config: dict[str, Any], status: int = 200
) -> HTMLResponse:
    entry, css = _bundle(request.app.state.settings.webui_dist)
    config = {"version": __version__, **config}
    page = _templates.get_template("shell.html")
    html = page.render(title=title, css=css, entry=entry, config=config)
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-cache"})


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
    public = projects.to_public(project, user).model_dump(mode="json")
    config = {"page": "project", "project": public, "ws_path": f"/api/projects/{pid}/ws"}
    return render_shell(request, project.name, config)

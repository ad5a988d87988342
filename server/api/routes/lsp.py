"""The language server websocket, ``/api/projects/{pid}/lsp``, its edits to files no editor has
open, and each person's editor settings (docs/ide.md)."""

from functools import partial

from fastapi import APIRouter, WebSocket

from server.api.deps import CurrentUser, EditableProject, HubDep, ProjectDep, SessionDep, WatchersDep
from server.api.services import services_of
from server.api.ws_refusal import refuse
from server.core.errors import AppError
from server.lsp import edits, settings
from server.lsp.bridge import LanguageServerBridge
from server.lsp.models import (
    EditorSettingsBody,
    EditorSettingsOut,
    EditsApplyRequest,
    EditsPreview,
    EditsPreviewRequest,
    EditsResult,
)
from server.lsp.service import admit, plan_for
from server.users.connections import CLOSE_CODE

router = APIRouter()


@router.websocket("/api/projects/{pid}/lsp")
async def language_server_socket(websocket: WebSocket, pid: str) -> None:
    services = services_of(websocket.app)
    state = websocket.scope.get("state", {})
    principal = state.get("principal")
    try:
        plan = plan_for(services.engine, principal, pid)
    except AppError as exc:
        await refuse(websocket, exc.detail)
        return
    recheck = partial(admit, principal=principal, pid=pid)
    # Held before the first await, so no change slips in between (server/users/connections.py).
    with services.connections.holding(state, "lsp", pid, recheck) as held:
        await websocket.accept()
        bridge = LanguageServerBridge(websocket, plan, pid)
        held.close_with(partial(bridge.stop, CLOSE_CODE))
        await bridge.run(services.language_servers)


@router.post("/api/projects/{pid}/lsp/edits/preview", tags=["lsp"])
async def preview_edits(body: EditsPreviewRequest, project: ProjectDep) -> EditsPreview:
    """What a language server's edits (a rename's) would change in files no editor has open."""
    return await edits.preview_edits(project.path, body)


@router.post("/api/projects/{pid}/lsp/edits", tags=["lsp"])
async def apply_edits(body: EditsApplyRequest, project: EditableProject, hub: HubDep,
                      watchers: WatchersDep) -> EditsResult:
    """Applies the edits to files whose etag still holds, all or none (``skipped`` says why)."""
    return await edits.apply_edits_to_files(project.path, project.id, body, hub, watchers)


@router.get("/api/editor/settings", tags=["lsp"])
def get_editor_settings(user: CurrentUser, session: SessionDep) -> EditorSettingsOut:
    return settings.get_settings(session, user.id)


@router.put("/api/editor/settings", tags=["lsp"])
def set_editor_settings(
    body: EditorSettingsBody, user: CurrentUser, session: SessionDep,
) -> EditorSettingsOut:
    return settings.set_settings(session, user.id, body)

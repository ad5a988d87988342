"""The language server websocket: ``/api/projects/{pid}/lsp`` (docs/ide.md)."""

from fastapi import APIRouter, WebSocket

from server.core.errors import AppError
from server.lsp.bridge import LanguageServerBridge
from server.lsp.service import plan_for

router = APIRouter()


@router.websocket("/api/projects/{pid}/lsp")
async def language_server_socket(websocket: WebSocket, pid: str) -> None:
    principal = websocket.scope.get("state", {}).get("principal")
    try:
        plan = plan_for(websocket.app.state.engine, principal, pid)
    except AppError as exc:
        await websocket.close(1008, exc.detail)
        return
    await websocket.accept()
    await LanguageServerBridge(websocket, plan, pid).run(websocket.app.state.language_servers)

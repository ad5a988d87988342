"""The language server websocket: ``/api/projects/{pid}/lsp`` (docs/ide.md)."""

from functools import partial

from fastapi import APIRouter, WebSocket

from server.api.ws_refusal import refuse
from server.core.errors import AppError
from server.lsp.bridge import LanguageServerBridge
from server.lsp.service import admit, plan_for
from server.users.connections import CLOSE_CODE

router = APIRouter()


@router.websocket("/api/projects/{pid}/lsp")
async def language_server_socket(websocket: WebSocket, pid: str) -> None:
    state = websocket.scope.get("state", {})
    principal = state.get("principal")
    try:
        plan = plan_for(websocket.app.state.engine, principal, pid)
    except AppError as exc:
        await refuse(websocket, exc.detail)
        return
    recheck = partial(admit, principal=principal, pid=pid)
    # Held before the first await, so no change slips in between (server/users/connections.py).
    with websocket.app.state.connections.holding(state, "lsp", pid, recheck) as held:
        await websocket.accept()
        bridge = LanguageServerBridge(websocket, plan, pid)
        held.close_with(partial(bridge.stop, CLOSE_CODE))
        await bridge.run(websocket.app.state.language_servers)

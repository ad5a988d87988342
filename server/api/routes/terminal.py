"""The terminal websocket: ``/api/projects/{pid}/terminal?id=&cols=&rows=`` (docs/ide.md)."""

from fastapi import APIRouter, WebSocket

from server.api.services import services_of
from server.api.ws_refusal import refuse
from server.core.errors import AppError
from server.terminal.connection import TerminalConnection
from server.terminal.service import open_terminal

router = APIRouter()


@router.websocket("/api/projects/{pid}/terminal")
async def terminal_socket(websocket: WebSocket, pid: str, id: str | None = None,
                          cols: int = 80, rows: int = 24) -> None:
    state = services_of(websocket.app)
    size = max(1, min(cols, 1000)), max(1, min(rows, 1000))
    try:
        terminal, created = open_terminal(state.engine, state.settings, state.sandbox, state.terminals,
                                          websocket.scope.get("state", {}), pid, id, *size)
    except AppError as exc:
        await refuse(websocket, exc.detail)
        return
    await websocket.accept()
    await TerminalConnection(websocket, state.terminals, terminal).run(created)

"""Refusing a websocket to a signed-in caller: accepted, then closed once with 1008 and the reason.

A close before ``accept`` is answered by the ASGI server with HTTP 403 and no reason, which a
browser sees as close 1006 and retries. Accepted first, the page gets 1008 and the reason and stops
(docs/security.md, "Websocket refusals"). Callers without credentials, from a foreign Origin or
for a foreign Host are still refused at the handshake, by ``server/core/security.py``.
"""

from fastapi import WebSocket

REFUSED = 1008
REASON_BYTES = 123  # the most a close frame's reason holds


def close_reason(detail: str) -> str:
    """``detail`` cut to a close frame's reason, never in the middle of a character."""
    return detail.encode()[:REASON_BYTES].decode(errors="ignore")


async def refuse(websocket: WebSocket, detail: str) -> None:
    await websocket.accept()
    await websocket.close(REFUSED, close_reason(detail))

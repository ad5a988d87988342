"""A cap on request bodies the server reads whole (docs/security.md, "Request sizes").

JSON and form bodies are read into memory before a route runs, so the cap is applied here, before
any of it is: a ``Content-Length`` over ``Settings.json_body_max_bytes`` is answered 413 at once
without reading the body, and a body sent in chunks is counted as it arrives and refused the
moment it passes the cap. Uploads that routes stream to disk (multipart files, a project's zip, raw
bytes) keep their own limit (``Settings.upload_max_bytes``, checked where they are written).
"""

import json
from collections.abc import Awaitable, Callable
from typing import Any

from server.core.error_codes import ErrorCode

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

STREAMED_TYPES = ("multipart/form-data", "application/zip", "application/octet-stream")


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


class BodyLimit:
    """Pure ASGI: refuses a request body over ``max_bytes`` with 413 ``body_too_large``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        content_type = _header(scope, b"content-type").split(";")[0].strip().lower()
        if scope["type"] != "http" or content_type in STREAMED_TYPES:
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length.isdigit() and int(length) > self.max_bytes:
            await self._refuse(send, int(length))
            return
        await self._counted(scope, receive, send)

    async def _counted(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A body without a (truthful) length: counted as it arrives; past the cap the client is
        answered 413 and the route sees a disconnect, whose own answer goes nowhere."""
        received = 0
        refused = False

        async def counting_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    refused = True
                    await self._refuse(send, received)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, counting_receive, guarded_send)

    async def _refuse(self, send: Send, size: int) -> None:
        detail = (f"the request body is over {self.max_bytes} bytes ({size} bytes or more); "
                  "upload large files as files")
        body = json.dumps({"detail": detail, "code": ErrorCode.BODY_TOO_LARGE}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"cache-control", b"no-store"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

"""One JSON error shape for every failure: ``{"detail": str, "code": str}``.

Unexpected errors are answered by ``CatchAll``, an ASGI middleware inside the app's own
middlewares, rather than by Starlette's outermost error middleware: that one re-raises after
answering, and uvicorn then closes the connection, so a browser's next keep-alive request on it
would be reset.
"""

import errno
import logging
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.core.db import database_full
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, InsufficientStorage, Invalid
from server.core.fsutil import FULL_DISK_ERRNOS

log = logging.getLogger("mnnwb")
_HTTP_CODES = {401: ErrorCode.UNAUTHORIZED, 403: ErrorCode.FORBIDDEN, 404: ErrorCode.NOT_FOUND,
               405: ErrorCode.METHOD_NOT_ALLOWED}
INTERNAL = {"detail": "internal server error", "code": ErrorCode.INTERNAL}


def _describe(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(parts) or "invalid request"


async def app_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    return JSONResponse(exc.body(), status_code=exc.status)


async def validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return JSONResponse({"detail": _describe(exc), "code": ErrorCode.INVALID}, status_code=422)


async def http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, ErrorCode.ERROR)
    return JSONResponse({"detail": str(exc.detail), "code": code}, status_code=exc.status_code,
                        headers=exc.headers)


def domain_error(exc: OSError) -> AppError | None:
    """The client's error hidden in an OS error that no service turned into one itself."""
    if exc.errno in FULL_DISK_ERRNOS:
        return InsufficientStorage("the disk is full: the change was not written")
    if exc.errno == errno.ENAMETOOLONG:
        return Invalid("a file name is longer than 255 bytes", code=ErrorCode.NAME_TOO_LONG)
    return None


def _where(conn: Request | WebSocket) -> str:
    """``GET /path`` for a request, ``websocket /path`` for a socket (which has no method)."""
    return f"{conn.method if isinstance(conn, Request) else 'websocket'} {conn.url.path}"


async def database_error(request: Request | WebSocket, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DBAPIError)
    if database_full(exc):
        full = InsufficientStorage("the disk is full: the change was not saved")
        return JSONResponse(full.body(), status_code=full.status)
    log.error("unhandled error on %s", _where(request), exc_info=exc)
    return JSONResponse(INTERNAL, status_code=500)


async def os_error(request: Request | WebSocket, exc: Exception) -> JSONResponse:
    assert isinstance(exc, OSError)
    mapped = domain_error(exc)
    if mapped is None:
        log.error("unhandled error on %s", _where(request), exc_info=exc)
        return JSONResponse(INTERNAL, status_code=500)
    return JSONResponse(mapped.body(), status_code=mapped.status)


class CatchAll:
    """Answer any other exception with the generic 500 and keep the connection open."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked_send)
        except Exception as exc:
            if started:
                raise  # half a response went out: only closing the connection ends it
            log.error("unhandled error on %s %s", scope["method"], scope["path"], exc_info=exc)
            await JSONResponse(INTERNAL, status_code=500)(scope, receive, send)


def install_error_handlers(app: FastAPI) -> None:
    handlers: dict[Any, Any] = {
        AppError: app_error, RequestValidationError: validation_error,
        HTTPException: http_error, OSError: os_error, DBAPIError: database_error,
    }
    for exc_class, handler in handlers.items():
        app.add_exception_handler(exc_class, handler)
    app.add_middleware(CatchAll)

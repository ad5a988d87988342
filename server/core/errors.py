"""Domain exceptions and the one JSON error shape: ``{"detail": str, "code": str}``."""

from typing import Any

from server.core.error_codes import ErrorCode


class AppError(Exception):
    """A failure a client can act on. ``extra`` fields are merged into the error body."""

    status = 400
    code: str = ErrorCode.BAD_REQUEST

    def __init__(self, detail: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        if code:
            self.code = code
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"detail": self.detail, "code": self.code, **self.extra}


class Invalid(AppError):
    status = 422
    code = ErrorCode.INVALID


class Unauthorized(AppError):
    status = 401
    code = ErrorCode.UNAUTHORIZED


class Forbidden(AppError):
    status = 403
    code = ErrorCode.FORBIDDEN


class NotFound(AppError):
    status = 404
    code = ErrorCode.NOT_FOUND


class Conflict(AppError):
    status = 409
    code = ErrorCode.CONFLICT


class TooLarge(AppError):
    status = 413
    code = ErrorCode.TOO_LARGE


class BadGateway(AppError):
    """A remote service answered with something unusable (e.g. a Git remote missing objects)."""

    status = 502
    code = ErrorCode.BAD_GATEWAY


class Unavailable(AppError):
    status = 503
    code = ErrorCode.UNAVAILABLE


class InsufficientStorage(AppError):
    status = 507
    code = ErrorCode.INSUFFICIENT_STORAGE

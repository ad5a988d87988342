"""Domain exceptions and the one JSON error shape: ``{"detail": str, "code": str}``."""

from typing import Any


class AppError(Exception):
    """A failure a client can act on. ``extra`` fields are merged into the error body."""

    status = 400
    code = "bad_request"

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
    code = "invalid"


class Unauthorized(AppError):
    status = 401
    code = "unauthorized"


class Forbidden(AppError):
    status = 403
    code = "forbidden"


class NotFound(AppError):
    status = 404
    code = "not_found"


class Conflict(AppError):
    status = 409
    code = "conflict"


class TooLarge(AppError):
    status = 413
    code = "too_large"


class BadGateway(AppError):
    """A remote service answered with something unusable (e.g. a Git remote missing objects)."""

    status = 502
    code = "bad_gateway"


class Unavailable(AppError):
    status = 503
    code = "unavailable"


class InsufficientStorage(AppError):
    status = 507
    code = "insufficient_storage"

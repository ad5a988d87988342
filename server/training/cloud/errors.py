"""Turn SDK exceptions into domain errors with a clear message and the cloud request id.

Messages are built only from the service's code/message fields (never from request dumps) and
are scrubbed of every secret the caller knows, so keys and tokens cannot leak into the UI or
the logs.

The SDKs are imported when first used, not with this module: together they take about a second
to import, which every start of the server would pay (``tests/server/training/cloud/
test_lazy_sdk.py``). Whoever catches their exceptions has called them, so they are imported by then.
"""

from collections.abc import Iterable
from functools import cache

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Conflict, Forbidden, Invalid, NotFound, Unavailable


@cache
def sdk_errors() -> tuple[type[BaseException], ...]:
    """Exceptions the SDK calls raise; anything else is a bug here and must not be disguised."""
    import alibabacloud_oss_v2 as oss
    import requests
    from alibabacloud_credentials.exceptions import CredentialException
    from Tea.exceptions import TeaException

    return TeaException, CredentialException, oss.exceptions.BaseError, requests.RequestException

_AUTH_CODES = (
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "IncompleteSignature",
    "InvalidSecurityToken",
    "InvalidCredentials",
    "SignatureNonceUsed",
    "InvalidTimeStamp",
    "RequestTimeTooSkewed",
)


def cloud_error(exc: BaseException, what: str, secrets: Iterable[str] = ()) -> AppError:
    """Map one SDK exception raised while doing ``what`` (e.g. "PAI-DLC CreateJob")."""
    err = _classify(_unwrap(exc), what)
    for secret in secrets:
        if secret:
            err.detail = err.detail.replace(secret, "***")
    err.args = (err.detail,)
    return err


def _unwrap(exc: BaseException) -> BaseException:
    import alibabacloud_oss_v2 as oss
    from alibabacloud_credentials.exceptions import CredentialException
    from Tea.exceptions import UnretryableException

    if isinstance(exc, oss.exceptions.OperationError):
        exc = exc.unwrap()
    if isinstance(exc, UnretryableException) and isinstance(exc.inner_exception, CredentialException):
        exc = exc.inner_exception
    return exc


def _classify(exc: BaseException, what: str) -> AppError:
    import alibabacloud_oss_v2 as oss
    from alibabacloud_credentials.exceptions import CredentialException
    from Tea.exceptions import TeaException, UnretryableException

    if isinstance(exc, UnretryableException):
        inner = exc.inner_exception
        detail = f"{what} failed: cannot reach the service ({type(inner).__name__}: {inner})"
        return Unavailable(detail, code=ErrorCode.CLOUD_UNREACHABLE)
    if isinstance(exc, CredentialException | oss.exceptions.CredentialsBaseError):
        reason = exc.message if isinstance(exc, CredentialException) else str(exc)
        return Forbidden(f"{what} failed: no usable Alibaba Cloud credentials ({reason})",
                         code=ErrorCode.CLOUD_AUTH)
    if isinstance(exc, oss.exceptions.ServiceError):
        return _from_service(what, exc.status_code, exc.code, exc.message, exc.request_id)
    if isinstance(exc, TeaException) and getattr(exc, "code", None):
        status = getattr(exc, "status_code", None) or getattr(exc, "statusCode", 0) or 0
        data = exc.data if isinstance(exc.data, dict) else {}
        message = str(data.get("Message") or exc.message or "")
        request_id = getattr(exc, "request_id", None) or data.get("RequestId") or ""
        return _from_service(what, int(status), str(exc.code), message, str(request_id))
    if isinstance(exc, oss.exceptions.InconsistentError):
        return Conflict(f"{what} failed: data was corrupted in transit ({exc})",
                        code=ErrorCode.CLOUD_CHECKSUM)
    return Unavailable(f"{what} failed: {type(exc).__name__}: {exc}", code=ErrorCode.CLOUD_UNREACHABLE)


def _from_service(what: str, status: int, code: str, message: str, request_id: str) -> AppError:
    text = f"{what} failed: {message.rstrip('.')} [{code}, request id {request_id or 'n/a'}]"
    extra = {"request_id": request_id, "cloud_code": code}
    if code.startswith(_AUTH_CODES):
        return Forbidden(text + " — check the access key id and secret", code=ErrorCode.CLOUD_AUTH, **extra)
    if code.startswith("Throttling") or status == 429:
        return Unavailable(text + " — too many requests, retry later",
                           code=ErrorCode.CLOUD_THROTTLED, **extra)
    if "Quota" in code or "Insufficient" in code:
        return Conflict(text, code=ErrorCode.CLOUD_QUOTA, **extra)
    if status == 403 or code.startswith(("Forbidden", "NoPermission", "AccessDenied")):
        return Forbidden(text, code=ErrorCode.CLOUD_FORBIDDEN, **extra)
    if status == 404:
        return NotFound(text, code=ErrorCode.CLOUD_NOT_FOUND, **extra)
    if 400 <= status < 500:
        return Invalid(text, code=ErrorCode.CLOUD_INVALID, **extra)
    return Unavailable(text, code=ErrorCode.CLOUD_ERROR, **extra)

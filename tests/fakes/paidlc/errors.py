"""Request/response records and the two error shapes: ACS JSON and OSS XML."""

import base64
import json
import uuid
from dataclasses import dataclass, field
from xml.sax.saxutils import escape


def new_request_id() -> str:
    return str(uuid.uuid4()).upper()


@dataclass
class Request:
    method: str
    path: str  # raw, still percent-encoded
    query: str  # raw query string
    headers: dict[str, str]  # lower-case names
    body: bytes
    request_id: str = field(default_factory=new_request_id)


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes = b""


class ApiError(Exception):
    """An error answered to the client; ``extra`` adds service-specific fields."""

    def __init__(self, status: int, code: str, message: str, **extra: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def json_response(request: Request, status: int, payload: dict) -> Response:
    body = json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json;charset=utf-8",
        "x-acs-request-id": request.request_id,
    }
    return Response(status, headers, body)


def acs_error(request: Request, err: ApiError) -> Response:
    payload = {
        "RequestId": request.request_id,
        "HostId": request.headers.get("host", ""),
        "Code": err.code,
        "Message": err.message,
        **err.extra,
    }
    return json_response(request, err.status, payload)


def oss_error(request: Request, err: ApiError) -> Response:
    fields = {
        "Code": err.code,
        "Message": err.message,
        "RequestId": request.request_id,
        "HostId": request.headers.get("host", ""),
        **err.extra,
    }
    inner = "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in fields.items())
    xml = f'<?xml version="1.0" encoding="UTF-8"?>\n<Error>{inner}</Error>'.encode()
    headers = {"Content-Type": "application/xml", "x-oss-request-id": request.request_id}
    if err.extra.get("EC"):
        headers["x-oss-ec"] = err.extra["EC"]
    if request.method == "HEAD":
        # HEAD answers carry no body; OSS puts the error document in a header instead.
        headers["x-oss-err"] = base64.b64encode(xml).decode()
        return Response(err.status, headers)
    return Response(err.status, headers, xml)

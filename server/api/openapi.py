"""The OpenAPI document as the server really answers.

FastAPI documents its own validation-error array; every failure here is ``{"detail": str,
"code": str, …}`` instead (``server/api/errors.py``). This module rewrites the generated schema in
one place, so every route, old or new, documents that shape and the error statuses the shared
machinery can answer for it:

* 400 for every operation (a Host header that is not allowed);
* 401, 403 and 422 for every operation behind authentication (no or bad credentials; a role
  that may not do this, or a cross-site request; a team-mode route called in local mode);
* 404 and 422 for every operation that takes parameters or a body (what they name does not
  exist; they do not validate, or a file name is longer than 255 bytes);
* 409 and 507 for every operation that changes state (a conflicting change; a full disk);
* 413 for every operation that takes a body (over the cap of ``server/api/body_limit.py``, or
  an upload over its limit).

Statuses only some operations answer (413, 429, 503, …) are declared on those routes with
``errors(...)``; a route's own declaration is kept and given the error shape.
"""

import re
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from starlette.routing import Match

from server.api.events import schemas as event_schemas
from server.core.error_codes import ErrorCode
from server.core.security import PUBLIC_PATHS

REF_TEMPLATE = "#/components/schemas/{model}"
ERROR_REF = REF_TEMPLATE.format(model="Error")
ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "description": "Every failure: a readable message and a stable machine code, sometimes with "
                   "more fields (for example the files a conflict is about).",
    "properties": {"detail": {"type": "string"}, "code": {"$ref": REF_TEMPLATE.format(model="ErrorCode")}},
    "required": ["detail", "code"],
    "additionalProperties": True,
}
REASONS = {
    400: "Bad request: a Host header that is not allowed, or a request the server cannot use",
    401: "Authentication required, or the credentials are not valid",
    403: "Forbidden: the caller's role may not do this, or a cross-site request",
    404: "What the path or parameters name does not exist",
    409: "Conflict with the current state",
    413: "Too large",
    422: "The parameters or the body do not validate",
    429: "Too many attempts; try again later",
    503: "A service this needs is not available",
    507: "The disk is full; nothing was changed",
}
UNSAFE = frozenset({"post", "put", "patch", "delete"})
ERROR_CODE_SCHEMA: dict[str, Any] = {
    "title": "ErrorCode",
    "type": "string",
    "enum": sorted(code.value for code in ErrorCode),
    "description": "Every error code (server/core/error_codes.py; the table in docs/api.md).",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route that answers these error statuses besides the generic ones."""
    return {status: {"description": REASONS[status]} for status in statuses}


def _generic_statuses(path: str, method: str, operation: dict[str, Any]) -> set[int]:
    statuses = {400}
    if path not in PUBLIC_PATHS:  # ``/bridge/`` routes are open but check their own credential
        statuses |= {401, 403, 422}
    if operation.get("parameters") or operation.get("requestBody"):
        statuses |= {404, 422}
    if method in UNSAFE:
        statuses |= {409, 422, 507}
    if operation.get("requestBody"):
        statuses.add(413)
    return statuses


def _error_response(status: int, declared: dict[str, Any] | None) -> dict[str, Any]:
    description = (declared or {}).get("description") or REASONS.get(status, "Error")
    if status == 422 or description == "Validation Error":
        description = REASONS[422]
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": ERROR_REF}}}}


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()


def _input_schemas(schema: dict[str, Any], components: dict[str, Any]) -> set[str]:
    """Names of the component schemas a request can carry, directly or nested."""
    todo = set().union(*(
        _refs({k: v for k, v in operation.items() if k in ("parameters", "requestBody")})
        for operations in schema.get("paths", {}).values() for operation in operations.values()))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen and name in components:
            seen.add(name)
            todo |= _refs(components[name])
    return seen


def _always_sent(schema: dict[str, Any], components: dict[str, Any]) -> None:
    """A response model is serialized with every field, defaults included: mark them required
    (pydantic leaves fields with a default out of ``required`` even for what the server sends)."""
    inputs = _input_schemas(schema, components)
    for name, component in components.items():
        if name not in inputs and component.get("properties"):
            component["required"] = list(component["properties"])


def _creates(operation: dict[str, Any], components: dict[str, Any]) -> str | None:
    """The status of a creation's answer whose body carries the new thing's ``id``."""
    for status, response in operation.get("responses", {}).items():
        ref = response.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
        if status in ("201", "202") and ref and "id" in components.get(ref.rsplit("/", 1)[-1], {}).get(
                "properties", {}):
            return status
    return None


def _link_creations(schema: dict[str, Any], components: dict[str, Any]) -> None:
    """OpenAPI links from each creation to the operations on what it created: ``POST
    /api/projects`` feeds ``{pid}`` of ``/api/projects/{pid}/…``; ``POST /api/projects/{pid}/jobs``
    feeds ``{jid}`` of ``/api/jobs/{jid}/…``."""
    paths = schema.get("paths", {})
    for source, operations in paths.items():
        post = operations.get("post")
        status = _creates(post, components) if post else None
        if status is None:
            continue
        collection = source.rstrip("/").rsplit("/", 1)[-1]
        links = post["responses"][status].setdefault("links", {})
        for target, target_ops in paths.items():
            for prefix in (source + "/{", f"/api/{collection}/{{"):
                if not target.startswith(prefix):
                    continue
                param = target[len(prefix):].split("}", 1)[0]
                for method, operation in target_ops.items():
                    names = {p["name"] for p in operation.get("parameters", []) if p.get("in") == "path"}
                    wired = {name: f"$request.path.{name}" for name in names if f"{{{name}}}" in source}
                    links[f"{method}{target}".replace("/", "_").replace("{", "").replace("}", "")] = {
                        "operationId": operation["operationId"],
                        "parameters": {**wired, param: "$response.body#/id"},
                    }


def truthful(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a generated schema in place: the one error shape, every error status, and the
    fields a response always carries."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    _always_sent(schema, components)
    _link_creations(schema, components)
    for name, event_schema in event_schemas(REF_TEMPLATE).items():  # a route's model stays its own
        components.setdefault(name, event_schema)
    components["Error"] = ERROR_SCHEMA
    components["ErrorCode"] = ERROR_CODE_SCHEMA
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            declared = {int(s) for s in responses if s.isdigit() and int(s) >= 400}
            for status in sorted(declared | _generic_statuses(path, method, operation)):
                responses[str(status)] = _error_response(status, responses.get(str(status)))
    return schema


METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _template_regex(template: str) -> str:
    """A document path (``/api/projects/{pid}/files/{path:path}``) as a regular expression."""
    parts = re.split(r"(\{[^}]+\})", template)
    return "".join((".+" if part.endswith(":path}") else "[^/]+") if part.startswith("{")
                   else re.escape(part) for part in parts)


def _documented_methods(app: FastAPI, path: str) -> list[str] | None:
    """The methods the document lists for ``path``: of its most specific template, a literal
    one (``/api/devices/pairings``) before a templated one (``/api/devices/{did}``), as OpenAPI
    reads paths. None when no documented path matches."""
    paths = app.openapi()["paths"]
    matching = [template for template in paths if re.fullmatch(_template_regex(template), path)]
    if not matching:
        return None
    operations = paths[min(matching, key=lambda template: template.count("{"))]
    return [method for method in METHODS if method.lower() in operations]


def allowed_methods(request: Request) -> str:
    """The ``Allow`` header of a 405: the methods the document lists for the path, else (for a
    route left out of it) every method some route serves there. Starlette would name only the
    methods of the first route that matched the path."""
    allowed = _documented_methods(request.app, request.url.path)
    if allowed is None:
        allowed = [method for method in METHODS
                   if any(route.matches({**request.scope, "method": method})[0] == Match.FULL
                          for route in request.app.router.routes)]
    return ", ".join(allowed)


async def method_not_allowed(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": "method not allowed", "code": ErrorCode.METHOD_NOT_ALLOWED},
                        status_code=405, headers={"Allow": allowed_methods(request)})


def install_openapi(app: FastAPI) -> None:
    """Serve (and cache) the rewritten document as ``app.openapi()`` and ``/openapi.json``, and
    make a 405 name every method the path serves, as the document does."""
    app.add_exception_handler(405, method_not_allowed)

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = truthful(get_openapi(
                title=app.title, version=app.version, routes=app.routes,
                description=app.description))
        return app.openapi_schema

    openapi: Callable[[], dict[str, Any]] = build
    app.openapi = openapi  # type: ignore[method-assign]

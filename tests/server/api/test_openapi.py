"""The OpenAPI document names the error shape the server sends, on every operation, new ones too."""

from fastapi import APIRouter
from fastapi.testclient import TestClient

from server.api.openapi import ERROR_REF


def _error_refs(operation: dict) -> dict[str, str]:
    return {status: body["content"]["application/json"]["schema"].get("$ref", "")
            for status, body in operation["responses"].items() if int(status) >= 400}


def test_every_error_response_is_the_one_error_shape(client: TestClient) -> None:
    schema = client.app.openapi()
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert schema["components"]["schemas"]["Error"]["required"] == ["detail", "code"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            refs = _error_refs(operation)
            assert refs and set(refs.values()) == {ERROR_REF}, (method, path, refs)
            if path != "/api/health":
                assert {"401", "403"} <= refs.keys(), (method, path)
            if method in ("post", "put", "patch", "delete"):
                assert {"409", "422", "507"} <= refs.keys(), (method, path)


def test_a_route_added_later_gets_the_error_shape(client: TestClient) -> None:
    router = APIRouter()

    @router.post("/api/added-later/{item}")
    def added(item: int, body: dict[str, int]) -> dict[str, int]:
        return body

    client.app.include_router(router)
    client.app.openapi_schema = None
    operation = client.app.openapi()["paths"]["/api/added-later/{item}"]["post"]
    assert set(_error_refs(operation).values()) == {ERROR_REF}
    answer = client.post("/api/added-later/x", json={"a": "b"})
    assert answer.status_code == 422 and set(answer.json()) == {"detail", "code"}
    assert "422" in operation["responses"] and "404" in operation["responses"]


def test_a_405_names_every_method_of_the_path(client: TestClient) -> None:
    answer = client.request("OPTIONS", "/api/projects")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, POST"
    assert answer.json()["code"] == "method_not_allowed"


def test_a_405_on_a_literal_path_names_its_methods_not_those_of_a_template_it_matches(
        client: TestClient) -> None:
    """``/api/devices/pairings`` also matches ``/api/devices/{did}`` (GET, PATCH, DELETE); the
    document lists only POST for it, and so does ``Allow``."""
    paths = client.app.openapi()["paths"]
    assert set(paths["/api/devices/pairings"]) == {"post"}
    answer = client.request("OPTIONS", "/api/devices/pairings")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"
    assert client.request("OPTIONS", "/api/devices/some-id").headers["allow"] == "GET, PATCH, DELETE"

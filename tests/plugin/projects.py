"""A project to work in."""

import pytest
from fastapi.testclient import TestClient


@pytest.fixture
def project(client: TestClient) -> dict:
    """An empty project without a Git repository (``git: false``): the tests using it make
    their own history, or none."""
    response = client.post("/api/projects", json={"name": "demo", "template": "empty", "git": False})
    assert response.status_code == 201, response.text
    return response.json()

"""A model's spec (``<model>.model.toml``): read it (or a draft from the model file), write it."""

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Body
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from device_bridge.runtime.spec import sidecar
from server.api.deps import ClientId, EditableProject, HubDep, ProjectDep
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files.paths import relative, resolve
from server.modeltools import specs
from server.modeltools.formats import MODEL_SUFFIXES

router = APIRouter(prefix="/api/projects/{pid}/model-spec", tags=["tools"])


class DeclaredTensor(BaseModel):
    name: str
    shape: list[int]
    labels: list[str | None] = []


class ModelSpecPublic(BaseModel):
    """``spec`` is the sidecar's content, or a draft from the model file when ``exists`` is
    false; ``declared_*`` are what the model file itself says (``-1``: a dynamic dim)."""

    path: str
    spec_path: str
    exists: bool
    spec: dict[str, Any]
    declared_inputs: list[DeclaredTensor]
    declared_outputs: list[DeclaredTensor]


def _model(root: str, path: str) -> Path:
    model = resolve(root, path)
    if not model.is_file() or model.suffix.lower() not in MODEL_SUFFIXES:
        raise Invalid(f"{path} is not a model file ({', '.join(MODEL_SUFFIXES)})",
                      code=ErrorCode.BAD_MODEL_FILE)
    return model


def _public(root: str, model: Path) -> ModelSpecPublic:
    found = specs.public(model, specs.load(model))
    return ModelSpecPublic(path=relative(root, model), spec_path=relative(root, sidecar(model)), **found)


@router.get("")
def read_spec(project: ProjectDep, path: str) -> ModelSpecPublic:
    return _public(project.path, _model(project.path, path))


@router.put("")
async def write_spec(
    project: EditableProject, hub: HubDep, client: ClientId, path: str,
    body: dict[str, Any] = Body(...),  # noqa: B008 - FastAPI's way to take a JSON object
) -> ModelSpecPublic:
    def save() -> ModelSpecPublic:
        model = _model(project.path, path)
        specs.save(hub, project.id, project.path, model, body, client)
        return _public(project.path, model)

    return await run_in_threadpool(save)

"""A project's datasets (docs/datasets.md): the ones found in its folder, or one by path."""

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool

from server.api.deps import ProjectDep
from server.datasets import service
from server.datasets.models import DatasetSummary

router = APIRouter(prefix="/api/projects/{pid}", tags=["datasets"])


@router.get("/datasets")
async def list_datasets(project: ProjectDep) -> list[DatasetSummary]:
    """Every dataset found in the project's folder: counts per class and split, thumbnails and
    the files skipped."""
    return await run_in_threadpool(service.list_datasets, project)


@router.get("/dataset")
async def read_dataset(
    project: ProjectDep, path: Annotated[str, Query(min_length=1, max_length=4096)]
) -> DatasetSummary:
    """The dataset at ``path`` (a folder, a .csv or a COCO .json)."""
    return await run_in_threadpool(service.read_dataset, project, path)

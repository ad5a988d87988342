"""What a killed server left behind in the data dir and in every project's folder."""

from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core import leftovers
from server.projects.models import Project


def sweep_leftovers(engine: Engine, data_dir: Path, before: float) -> int:
    """Delete what a killed server left in the data dir, every project and the temp dir
    (``server/core/leftovers.py``): the temp files of saves it never finished among them."""
    with Session(engine) as session:
        folders = list(session.exec(select(Project.path)).all())
    return leftovers.sweep(data_dir, folders, before)

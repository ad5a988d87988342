"""Adding the ``ray`` backend to the job manager, when the ``ray`` extra is installed."""

import importlib.util
from pathlib import Path

from sqlalchemy.engine import Engine

from server.core.events import EventHub
from server.core.secrets import KEY_FILE, SecretBox
from server.training.ray.prepare import PrepareRay
from server.training.ray.runner import BACKEND, RayRunner
from server.training.ray.settings import RaySettingsStore
from server.training.service import JobManager


def ray_installed() -> bool:
    """Whether ``import ray`` can work, without paying for the import (seconds) at start."""
    try:
        return importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):  # ValueError: ``ray`` blocked in sys.modules
        return False


def register_ray(jobs: JobManager, engine: Engine, hub: EventHub,
                 data_dir: Path) -> RayRunner | None:
    """Add the ``ray`` backend (before ``jobs.start()``); None when Ray is not installed."""
    if not ray_installed():
        return None
    store = RaySettingsStore(engine, SecretBox(data_dir / KEY_FILE))
    runner = RayRunner(jobs, jobs.jobs_dir, store, hub)
    jobs.register(BACKEND, runner, PrepareRay(store, hub))
    return runner

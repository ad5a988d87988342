"""Which training backends this server offers, and why one is missing."""

from pydantic import BaseModel

from server.training.ray.client import INSTALL_HINT
from server.training.service import JobManager

LABELS = {"local": "This machine", "pai-dlc": "PAI-DLC cluster", "ray": "Ray cluster"}
HINTS = {"ray": f"Ray is not installed: {INSTALL_HINT}",
         "pai-dlc": "the PAI-DLC backend is not enabled on this server"}


class BackendInfo(BaseModel):
    name: str
    label: str
    available: bool
    hint: str | None = None


def list_backends(jobs: JobManager) -> list[BackendInfo]:
    names = list(dict.fromkeys([*LABELS, *jobs.runners]))
    return [BackendInfo(name=name, label=LABELS.get(name, name), available=name in jobs.runners,
                        hint=None if name in jobs.runners else HINTS.get(name))
            for name in names]

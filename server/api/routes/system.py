"""Health, identity and the sandbox's state."""

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel

from server import __version__
from server.api.deps import CurrentUser, SandboxDep, SettingsDep
from server.users.models import UserPublic

router = APIRouter(prefix="/api", tags=["system"])


class Health(BaseModel):
    status: str
    version: str


@router.get("/health")
def health() -> Health:
    return Health(status="ok", version=__version__)


@router.get("/auth/me")
def me(user: CurrentUser, settings: SettingsDep) -> UserPublic:
    return UserPublic(id=user.id, name=user.name, mode=settings.mode, role=user.role)


class SandboxStatus(BaseModel):
    """``on``: users' code runs sandboxed; ``off``: an admin turned it off; ``unavailable``: it
    cannot run here (``reason``), and nothing that runs users' code starts."""

    state: Literal["on", "off", "unavailable"]
    reason: str | None
    network: Literal["none", "outbound"]


@router.get("/sandbox")
def sandbox_status(sandbox: SandboxDep, _user: CurrentUser) -> SandboxStatus:
    status = sandbox.status()
    return SandboxStatus(state=status.state, reason=status.reason, network=status.network)

"""Health and identity."""

from fastapi import APIRouter
from pydantic import BaseModel

from server import __version__
from server.api.deps import CurrentUser, SettingsDep
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

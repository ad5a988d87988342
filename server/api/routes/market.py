"""The algorithm market: browse every source, read a card, install, publish, retire versions,
hand a registry id to another project."""

from typing import Annotated

from fastapi import APIRouter, Body, Query

from server.api.deps import AdminUser, CurrentUser, EditableProject, SessionDep, SettingsDep
from server.api.openapi import errors
from server.market import install as installer
from server.market import owners, registry, service
from server.market.schemas import (
    DeprecateRequest,
    InstallRequest,
    InstallResult,
    MarketCard,
    MarketEntry,
    OwnerRequest,
    PackageOwner,
    PublishRequest,
    SourceStatus,
    VersionInfo,
)

router = APIRouter(prefix="/api", tags=["market"])
Text = Annotated[str, Query(max_length=200)]


@router.get("/market", responses=errors(503))
def list_market(session: SessionDep, settings: SettingsDep, _user: CurrentUser, q: Text = "",
                task: Text = "", source: Text = "") -> list[MarketEntry]:
    return service.list_entries(session, settings, q, task, source)


@router.get("/market-sources")
def market_sources(session: SessionDep, settings: SettingsDep, _user: CurrentUser) -> list[SourceStatus]:
    return service.source_statuses(session, settings)


@router.get("/market/{id}", responses=errors(503))
def market_card(id: str, session: SessionDep, settings: SettingsDep, _user: CurrentUser,
                source: Annotated[str | None, Query(max_length=200)] = None) -> MarketCard:
    return service.card(session, settings, id, source)


@router.post("/market/{id}/versions/{version}/install", status_code=201, responses=errors(503))
def install_version(id: str, version: str, body: InstallRequest, session: SessionDep,
                    settings: SettingsDep, user: CurrentUser) -> InstallResult:
    return installer.install(session, settings, user, id, version, body)


@router.post("/projects/{pid}/publish", status_code=201)
def publish(body: PublishRequest, project: EditableProject, session: SessionDep,
            settings: SettingsDep, user: CurrentUser) -> VersionInfo:
    return service.published(registry.publish(session, settings, user, project, body))


@router.delete("/market/{id}/versions/{version}", status_code=204)
def delete_version(id: str, version: str, session: SessionDep, settings: SettingsDep,
                   _admin: AdminUser) -> None:
    registry.delete_version(session, settings, id, version)


@router.post("/market/{id}/versions/{version}/deprecate")
def deprecate_version(id: str, version: str, session: SessionDep, _admin: AdminUser,
                      body: Annotated[DeprecateRequest | None, Body()] = None) -> VersionInfo:
    deprecated = body.deprecated if body is not None else True
    return service.published(registry.set_deprecated(session, id, version, deprecated))


@router.post("/market/registry/{id}/owner")
def transfer_owner(id: str, body: OwnerRequest, session: SessionDep, admin: AdminUser) -> PackageOwner:
    return owners.transfer(session, admin, id, body.project_id)

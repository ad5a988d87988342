"""Devices: registry, pairing, and a project's sessions on a device (docs/protocol.md §9.3)."""


from fastapi import APIRouter, Request, Response

from server.api.deps import (
    CurrentUser,
    DevicesDep,
    ProjectDep,
    RunnerProject,
    SessionDep,
    SettingsDep,
)
from server.devices import service
from server.devices.models import (
    DevicePublic,
    DeviceSessionPublic,
    DeviceUpdate,
    FactsAsked,
    PairingCreate,
    PairingPublic,
)

router = APIRouter(prefix="/api", tags=["devices"])


BridgeDep = DevicesDep


@router.get("/devices")
def list_devices(session: SessionDep, user: CurrentUser, bridge: BridgeDep) -> list[DevicePublic]:
    devices = service.list_devices(session, user)
    return [service.to_public(session, user, d, bridge.is_online(d.id)) for d in devices]


@router.get("/devices/{did}")
def get_device(did: str, session: SessionDep, user: CurrentUser,
               bridge: BridgeDep) -> DevicePublic:
    device = service.usable_device(session, user, did)
    return service.to_public(session, user, device, bridge.is_online(did))


@router.patch("/devices/{did}")
def rename_device(did: str, body: DeviceUpdate, session: SessionDep, user: CurrentUser,
                  bridge: BridgeDep) -> DevicePublic:
    device = service.rename_device(session, user, did, body.name)
    return service.to_public(session, user, device, bridge.is_online(did))


@router.delete("/devices/{did}", status_code=204)
async def delete_device(did: str, session: SessionDep, user: CurrentUser,
                        bridge: BridgeDep) -> Response:
    service.delete_device(session, user, did)
    await bridge.revoke(did)
    return Response(status_code=204)


@router.post("/devices/{did}/facts/refresh", status_code=202)
async def refresh_facts(did: str, session: SessionDep, user: CurrentUser,
                        bridge: BridgeDep) -> FactsAsked:
    """Ask the device's agent to probe its device again (MNN, backends, packages); the new facts
    replace ``info`` and reach tabs as ``devices``/``device.facts`` (docs/protocol.md)."""
    service.usable_device(session, user, did)
    await bridge.refresh_facts(did)
    return FactsAsked(device_id=did)


@router.post("/devices/pairings", status_code=201)
def create_pairing(body: PairingCreate, request: Request, session: SessionDep,
                   user: CurrentUser, settings: SettingsDep, bridge: BridgeDep) -> PairingPublic:
    return service.create_pairing(session, user, body.name, settings, str(request.base_url),
                                  bridge.agent.sha256)


@router.get("/projects/{pid}/devices/sessions")
def list_sessions(project: ProjectDep, bridge: BridgeDep) -> list[DeviceSessionPublic]:
    return bridge.sessions(project.id)


@router.post("/projects/{pid}/devices/{did}/sessions", status_code=201)
async def open_session(did: str, project: RunnerProject, session: SessionDep,
                       user: CurrentUser, bridge: BridgeDep) -> DeviceSessionPublic:
    service.usable_device(session, user, did)
    return await bridge.open_session(project.id, did)


@router.delete("/projects/{pid}/devices/{did}/sessions/{sid}", status_code=204)
async def close_session(did: str, sid: str, project: RunnerProject,
                        bridge: BridgeDep) -> Response:
    await bridge.close_session(project.id, sid)
    return Response(status_code=204)

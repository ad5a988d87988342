"""Sharing a paired device with other users (the owner's decision; see ``server/users/devices``)."""

from fastapi import APIRouter, Response

from server.api.deps import AccessChanges, SessionDep, TeamUser
from server.devices.service import get_device
from server.users import devices as sharing
from server.users.service import find_user

router = APIRouter(prefix="/api", tags=["devices"])


@router.get("/devices/{did}/shares")
def list_shares(did: str, session: SessionDep, user: TeamUser) -> list[str]:
    return sharing.list_shares(session, get_device(session, user, did))


@router.put("/devices/{did}/shares/{name}", status_code=204)
def share(did: str, name: str, session: SessionDep, user: TeamUser) -> Response:
    device = get_device(session, user, did)
    sharing.share_device(session, user, device, find_user(session, name))
    return Response(status_code=204)


@router.delete("/devices/{did}/shares/{name}", status_code=204)
def unshare(did: str, name: str, session: SessionDep, user: TeamUser,
            notify: AccessChanges) -> Response:
    device = get_device(session, user, did)
    sharing.unshare_device(session, user, device, find_user(session, name), notify)
    return Response(status_code=204)

"""Device registry and pairing: one-time codes become per-device tokens, stored hashed.

A device token authenticates only the device websocket (``/bridge/v1/device``); it is not an API
token and no ``/api`` route accepts it.
"""

import hashlib
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import or_
from sqlmodel import Session, col, select

from device_bridge.links import Identity
from device_bridge.protocol import DeviceInfo
from server.core.config import Settings
from server.core.db import utcnow
from server.core.errors import NotFound
from server.devices.models import Device, DevicePublic, Pairing, PairingPublic
from server.devices.pairing_command import pairing_options
from server.projects.models import Project
from server.projects.service import role_of
from server.users import devices as sharing
from server.users.models import User

PAIRING_TTL = timedelta(minutes=15)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without a zone; they were stored as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def to_public(session: Session, viewer: User, device: Device, online: bool) -> DevicePublic:
    owner = session.get(User, device.owner_id)
    return DevicePublic(id=device.id, name=device.name, online=online, info=device.info,
                        last_seen=aware(device.last_seen) if device.last_seen else None,
                        owner=owner.name if owner else "", mine=device.owner_id == viewer.id,
                        manage=may_manage(viewer, device))


def list_devices(session: Session, user: User) -> list[Device]:
    """The devices the user may use: paired by them, shared with them, or all for an admin."""
    query = select(Device).order_by(col(Device.created_at))
    if user.role != "admin":
        query = query.where(or_(col(Device.owner_id) == user.id,
                                col(Device.id).in_(sharing.shared_device_ids(user))))
    return list(session.exec(query))


def may_manage(user: User, device: Device) -> bool:
    """Renaming, removing and sharing a device are for its owner and admins."""
    return device.owner_id == user.id or user.role == "admin"


def get_device(session: Session, user: User, device_id: str) -> Device:
    """A device the user may manage (404 for anyone else, as for no device at all)."""
    device = session.get(Device, device_id)
    if device is None or not may_manage(user, device):
        raise NotFound("no such device")
    return device


def usable_device(session: Session, user: User, device_id: str) -> Device:
    """A device the user may open sessions on (owned, shared with them, or any for an admin)."""
    device = session.get(Device, device_id)
    if device is None or not sharing.may_use_device(session, user, device):
        raise NotFound("no such device")
    return device


def usable_devices_named(session: Session, user: User, name: str) -> list[Device]:
    """The devices the user may use that are called ``name`` (names need not be unique)."""
    return [device for device in list_devices(session, user) if device.name == name]


def rename_device(session: Session, user: User, device_id: str, name: str) -> Device:
    device = get_device(session, user, device_id)
    device.name = name
    session.add(device)
    session.commit()
    session.refresh(device)
    return device


def delete_device(session: Session, user: User, device_id: str) -> None:
    """Forget a device; its token stops working at once."""
    session.delete(get_device(session, user, device_id))
    session.commit()


def sessions_left_without_right(session: Session, user_id: str, device_id: str,
                                project_ids: Iterable[str]) -> set[str]:
    """Once a device is no longer shared with a user: which of ``project_ids`` (projects with a
    session on it) must end that session, being the user's projects whose owner may not use the
    device (a project uses the devices its owner may use)."""
    user, device = session.get(User, user_id), session.get(Device, device_id)
    if user is None or device is None:
        return set()
    ended = set()
    for project_id in project_ids:
        project = session.get(Project, project_id)
        owner = session.get(User, project.owner_id) if project else None
        if project is None or owner is None or role_of(session, user, project) is None:
            continue
        if not sharing.may_use_device(session, owner, device):
            ended.add(project_id)
    return ended


def create_pairing(session: Session, user: User, name: str, settings: Settings,
                   browser_url: str, agent_sha256: str) -> PairingPublic:
    """A one-time code, and the one-line command that pairs with it for each server address."""
    code = secrets.token_urlsafe(24)
    options = pairing_options(settings, browser_url, code, agent_sha256)
    expires = utcnow() + PAIRING_TTL
    now = utcnow()
    for stale in session.exec(select(Pairing).where(Pairing.owner_id == user.id)):
        if aware(stale.expires_at) < now:
            session.delete(stale)
    session.add(Pairing(name=name, owner_id=user.id, code_hash=digest(code), expires_at=expires))
    session.commit()
    return PairingPublic(token=code, command=options[0].command, expires_at=expires,
                         agent_sha256=agent_sha256, options=options)


def verify_token(session: Session, token: str, info: DeviceInfo) -> Identity | None:
    """The device a hello's token belongs to; a valid pairing code is redeemed here, once."""
    hashed = digest(token)
    device = session.exec(select(Device).where(Device.token_hash == hashed)).first()
    if device is not None:
        return Identity(device.id, device.name)
    pairing = session.exec(select(Pairing).where(Pairing.code_hash == hashed)).first()
    if pairing is None:
        return None
    session.delete(pairing)
    if aware(pairing.expires_at) < utcnow():
        session.commit()
        return None
    return _redeem(session, pairing, info)


def _redeem(session: Session, pairing: Pairing, info: DeviceInfo) -> Identity:
    """Issue a device token; a device paired again by the same user keeps its id."""
    token = secrets.token_urlsafe(32)
    same = select(Device).where(Device.owner_id == pairing.owner_id,
                                Device.agent_id == info.id)
    device = session.exec(same).first() or Device(name=pairing.name, owner_id=pairing.owner_id,
                                                  agent_id=info.id, token_hash="")
    device.name = pairing.name
    device.token_hash = digest(token)
    device.info = info.model_dump()
    session.add(device)
    session.commit()
    return Identity(device.id, device.name, token=token)


def may_download_agent(session: Session, token: str) -> bool:
    """The agent download needs a device token or a pairing code that is still valid; the code
    is not used up here, the agent redeems it when it connects."""
    if not token:
        return False
    hashed = digest(token)
    if session.exec(select(Device).where(Device.token_hash == hashed)).first() is not None:
        return True
    pairing = session.exec(select(Pairing).where(Pairing.code_hash == hashed)).first()
    return pairing is not None and aware(pairing.expires_at) >= utcnow()


def record_seen(session: Session, device_id: str, info: dict[str, Any]) -> None:
    device = session.get(Device, device_id)
    if device is None:
        return
    device.last_seen = utcnow()
    device.info = info
    session.add(device)
    session.commit()

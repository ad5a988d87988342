"""Device sharing: a device belongs to the user who paired it; the owner may let others use it.

"Use" means opening sessions on it from projects the user may run code in (the project check is
separate). Renaming, deleting and sharing stay with the owner; admins may use every device.
"""

from datetime import datetime
from typing import Protocol

from sqlalchemy import Column, ForeignKey, String
from sqlalchemy.sql import Select
from sqlmodel import Field, Session, SQLModel, select

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid, NotFound
from server.users import audit
from server.users.changes import AccessChange, Notify
from server.users.models import User


class DeviceShare(SQLModel, table=True):
    __tablename__ = "device_shares"

    device_id: str = Field(
        sa_column=Column(String(32), ForeignKey("devices.id", ondelete="CASCADE"), primary_key=True)
    )
    user_id: str = Field(
        sa_column=Column(String(32), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    created_at: datetime = Field(default_factory=utcnow)


class OwnedDevice(Protocol):
    id: str
    owner_id: str


def shared_device_ids(user: User) -> Select:
    """A subquery of the ids of devices shared with the user, for ``Device.id.in_(...)``."""
    return select(DeviceShare.device_id).where(DeviceShare.user_id == user.id)


def may_use_device(session: Session, user: User, device: OwnedDevice) -> bool:
    if user.role == "admin" or device.owner_id == user.id:
        return True
    return session.get(DeviceShare, (device.id, user.id)) is not None


def list_shares(session: Session, device: OwnedDevice) -> list[str]:
    query = (select(User.name).where(DeviceShare.device_id == device.id)
             .where(DeviceShare.user_id == User.id).order_by(User.name))
    return list(session.exec(query))


def share_device(session: Session, actor: User, device: OwnedDevice, user: User) -> None:
    if user.id == device.owner_id:
        raise Invalid("the owner already uses the device", code=ErrorCode.OWNER)
    if session.get(DeviceShare, (device.id, user.id)) is None:
        session.add(DeviceShare(device_id=device.id, user_id=user.id))
    audit.record(session, "device.share", actor=actor.name, device=device.id, user=user.name)
    session.commit()


def unshare_device(session: Session, actor: User, device: OwnedDevice, user: User,
                   notify: Notify) -> None:
    share = session.get(DeviceShare, (device.id, user.id))
    if share is None:
        raise NotFound(f"the device is not shared with {user.name}", code=ErrorCode.NO_SHARE)
    session.delete(share)
    audit.record(session, "device.unshare", actor=actor.name, device=device.id, user=user.name)
    session.commit()
    notify(AccessChange(user.id, "a device is no longer shared with you", device_id=device.id))

"""Device sharing on SQLite and PostgreSQL: owners share, others use, admins use everything."""

import pytest
from sqlmodel import Session, col, select

from server.core.errors import Invalid, NotFound
from server.devices.models import Device
from server.users import audit, service
from server.users.changes import AccessChange, unheard
from server.users.devices import list_shares, may_use_device, share_device, shared_device_ids, unshare_device
from tests.server.users.conftest import PASSWORD


def test_owner_shares_a_device_and_takes_it_back(db: Session):
    alice = service.add_user(db, "alice", PASSWORD)
    bob = service.add_user(db, "bob", PASSWORD)
    root = service.add_user(db, "root", PASSWORD, "admin")
    device = Device(name="phone", owner_id=alice.id, agent_id="a1", token_hash="h" * 64)
    db.add(device)
    db.commit()
    assert may_use_device(db, alice, device) and may_use_device(db, root, device)
    assert not may_use_device(db, bob, device)
    share_device(db, alice, device, bob)
    assert may_use_device(db, bob, device) and list_shares(db, device) == ["bob"]
    usable = db.exec(select(Device).where(col(Device.id).in_(shared_device_ids(bob)))).all()
    assert [d.id for d in usable] == [device.id]
    with pytest.raises(Invalid):
        share_device(db, alice, device, alice)
    told: list[AccessChange] = []
    unshare_device(db, alice, device, bob, told.append)
    assert not may_use_device(db, bob, device)
    assert told == [AccessChange(bob.id, "a device is no longer shared with you", device_id=device.id)]
    with pytest.raises(NotFound):
        unshare_device(db, alice, device, bob, unheard)
    actions = [e.action for e in audit.recent(db)]
    assert actions.count("device.share") == 1 and actions.count("device.unshare") == 1

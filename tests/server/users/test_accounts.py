"""User accounts on SQLite and PostgreSQL: add, list, passwords, roles, removal, audit."""

import pytest
from sqlmodel import Session, select

from server.core.errors import Conflict, Invalid, NotFound, Unauthorized
from server.projects.models import Project
from server.projects.owners import remove_user
from server.users import audit, service
from server.users.changes import AccessChange, unheard
from server.users.models import LoginBody
from server.users.sessions import login, session_credential
from tests.server.users.conftest import PASSWORD


def test_add_and_list_users_with_hashed_passwords(db: Session):
    service.add_user(db, "Alice", PASSWORD, "admin")
    service.add_user(db, "bob", PASSWORD)
    assert [(u.name, u.role) for u in service.list_users(db)] == [("alice", "admin"), ("bob", "member")]
    stored = service.find_user(db, "alice").password_hash or ""
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert service.has_admin(db)


def test_local_user_is_not_a_team_account(db: Session):
    service.ensure_local_user(db)
    assert service.list_users(db) == []
    assert not service.has_admin(db)
    with pytest.raises(Invalid):
        service.add_user(db, "local", PASSWORD)


def test_bad_names_are_refused(db: Session):
    for name in ("", "-x", "a b", "x" * 65, "über"):
        with pytest.raises(Invalid):
            service.add_user(db, name, PASSWORD)


def test_duplicate_and_weak_passwords_are_refused(db: Session):
    service.add_user(db, "alice", PASSWORD)
    with pytest.raises(Conflict):
        service.add_user(db, "ALICE", PASSWORD)
    with pytest.raises(Invalid):
        service.add_user(db, "bob", "short")


def test_new_password_signs_the_user_out(db: Session, throttle):
    alice = service.add_user(db, "alice", PASSWORD)
    _, secret = login(db, throttle, LoginBody(name="alice", password=PASSWORD), "10.0.0.1", 1.0)
    told: list[AccessChange] = []
    service.set_password(db, "alice", "another long password", told.append)
    assert session_credential(db, secret) is None
    assert told == [AccessChange(alice.id, "the password was changed; sign in again")]
    with pytest.raises(Unauthorized):
        login(db, throttle, LoginBody(name="alice", password=PASSWORD), "10.0.0.1", 1.0)
    login(db, throttle, LoginBody(name="alice", password="another long password"), "10.0.0.1", 1.0)


def test_removing_a_user_needs_their_projects_transferred(db: Session, throttle):
    alice = service.add_user(db, "alice", PASSWORD)
    service.add_user(db, "bob", PASSWORD)
    db.add(Project(name="p", path="/nowhere/p", owner_id=alice.id))
    db.commit()
    _, secret = login(db, throttle, LoginBody(name="alice", password=PASSWORD), "10.0.0.1", 1.0)
    told: list[AccessChange] = []
    with pytest.raises(Conflict):
        remove_user(db, "alice", told.append)
    assert told == []
    remove_user(db, "alice", told.append, transfer_to="bob")
    assert told == [AccessChange(alice.id, "the account was removed")]
    with pytest.raises(NotFound):
        service.find_user(db, "alice")
    assert session_credential(db, secret) is None
    bob = service.find_user(db, "bob")
    assert [p.owner_id for p in db.exec(select(Project))] == [bob.id]


def test_account_changes_are_audited(db: Session):
    service.add_user(db, "alice", PASSWORD, "admin")
    service.add_user(db, "bob", PASSWORD)
    service.set_role(db, "bob", "admin", unheard)
    remove_user(db, "bob", unheard)
    actions = [e.action for e in audit.recent(db)]
    assert sorted(actions) == ["user.add", "user.add", "user.remove", "user.role"]

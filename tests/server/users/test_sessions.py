"""Login sessions and API tokens on SQLite and PostgreSQL: expiry, logout, throttling, revocation."""

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from server.core.db import utcnow
from server.core.errors import NotFound, Unauthorized
from server.users import audit, service, sessions
from server.users.changes import AccessChange, unheard
from server.users.models import LoginBody, UserSession
from server.users.throttle import LoginThrottle, Throttled
from tests.server.users.conftest import PASSWORD


def _login(
    db: Session,
    throttle: LoginThrottle,
    name: str = "alice",
    password: str = PASSWORD,
    address: str = "10.0.0.1",
) -> str:
    return sessions.login(db, throttle, LoginBody(name=name, password=password), address, 1.0)[1]


def test_a_session_is_stored_hashed_and_expires(db: Session, throttle):
    alice = service.add_user(db, "alice", PASSWORD)
    secret = _login(db, throttle)
    row = db.exec(select(UserSession)).one()
    assert row.secret_hash == sessions.digest(secret) and secret not in row.secret_hash
    credential = sessions.session_credential(db, secret)
    assert credential is not None and credential.user_id == alice.id
    row.expires_at = utcnow() - timedelta(seconds=1)
    db.add(row)
    db.commit()
    assert sessions.session_credential(db, secret) is None
    assert db.exec(select(UserSession)).all() == []


def test_logout_ends_one_session_and_everywhere_ends_all(db: Session, throttle):
    alice = service.add_user(db, "alice", PASSWORD)
    first, second, third = (_login(db, throttle) for _ in range(3))
    one = sessions.session_credential(db, first)
    assert one is not None
    told: list[AccessChange] = []
    sessions.logout(db, alice, one.id, everywhere=False, address=None, notify=told.append)
    assert sessions.session_credential(db, first) is None
    assert sessions.session_credential(db, second) is not None
    token = sessions.create_token(db, alice, "ci", None).token
    sessions.logout(db, alice, None, everywhere=True, address=None, notify=told.append)
    assert sessions.session_credential(db, second) is None
    assert sessions.session_credential(db, third) is None
    assert sessions.token_credential(db, token) is not None
    assert told == [AccessChange(alice.id, "signed out")] * 2


def test_live_credentials_are_those_still_signing_someone_in(db: Session, throttle):
    alice = service.add_user(db, "alice", PASSWORD)
    ended, expired, kept = (sessions.session_credential(db, _login(db, throttle)) for _ in range(3))
    old, ci = (sessions.create_token(db, alice, name, None) for name in ("old", "ci"))
    held = {ended, expired, kept, sessions.token_credential(db, old.token),
            sessions.token_credential(db, ci.token)}
    assert None not in held and ended and expired and kept
    assert sessions.live_credentials(db, held) == held
    sessions.logout(db, alice, ended.id, everywhere=False, address=None, notify=unheard)
    row = db.get(UserSession, expired.id)
    assert row is not None
    row.expires_at = utcnow() - timedelta(seconds=1)
    db.add(row)
    db.commit()
    sessions.revoke_token(db, alice, old.id, None, unheard)
    assert {c.id for c in sessions.live_credentials(db, held)} == {kept.id, ci.id}


def test_failed_logins_are_throttled_per_name(db: Session, throttle):
    service.add_user(db, "alice", PASSWORD)
    for _ in range(3):
        with pytest.raises(Unauthorized):
            _login(db, throttle, password="wrong password!")
    with pytest.raises(Throttled) as caught:
        _login(db, throttle)
    assert caught.value.status == 429 and caught.value.extra["retry_after"] > 0
    actions = [e.action for e in audit.recent(db)]
    assert actions.count("login.failed") == 3 and "login" not in actions


def test_failed_logins_are_throttled_per_address(db: Session, throttle):
    for name in ("alice", "bob", "carol"):
        service.add_user(db, name, PASSWORD)
    for name in ("x1", "x2", "x3", "x4", "x5"):
        with pytest.raises(Unauthorized):
            _login(db, throttle, name=name)
    with pytest.raises(Throttled):
        _login(db, throttle, name="carol")
    _login(db, throttle, name="carol", address="10.0.0.2")


def test_throttle_forgets_after_the_window():
    now = [1000.0]
    throttle = LoginThrottle(per_name=2, per_address=10, window=60.0, clock=lambda: now[0])
    throttle.failed("alice", "a")
    throttle.failed("alice", "a")
    with pytest.raises(Throttled):
        throttle.check("alice", "a")
    now[0] += 61
    throttle.check("alice", "a")


def test_api_tokens_are_shown_once_stored_hashed_and_revocable(db: Session):
    alice = service.add_user(db, "alice", PASSWORD)
    bob = service.add_user(db, "bob", PASSWORD)
    created = sessions.create_token(db, alice, "ci", "10.0.0.1")
    assert created.token.startswith(sessions.TOKEN_PREFIX)
    listed = sessions.list_tokens(db, alice)
    assert [t.name for t in listed] == ["ci"] and "token" not in listed[0].model_dump()
    credential = sessions.token_credential(db, created.token)
    assert credential is not None and credential.user_id == alice.id
    assert sessions.token_credential(db, created.token + "x") is None
    told: list[AccessChange] = []
    with pytest.raises(NotFound):
        sessions.revoke_token(db, bob, created.id, None, told.append)
    sessions.revoke_token(db, alice, created.id, None, told.append)
    assert sessions.token_credential(db, created.token) is None
    assert told == [AccessChange(alice.id, "the API token was revoked")]
    assert [e.action for e in audit.recent(db)].count("token.revoke") == 1


def test_the_password_check_holds_no_database_connection(db: Session, throttle, monkeypatch):
    """A burst of sign-ins must not empty the connection pool while argon2 runs."""
    service.add_user(db, "alice", PASSWORD)
    pool = db.get_bind().pool
    held: list[int] = []
    check = sessions.verify_password

    def watched(stored: str | None, password: str) -> bool:
        held.append(pool.checkedout())
        return check(stored, password)

    monkeypatch.setattr(sessions, "verify_password", watched)
    assert _login(db, throttle)
    with pytest.raises(Unauthorized):
        _login(db, throttle, password="not the password")
    assert held == [0, 0]

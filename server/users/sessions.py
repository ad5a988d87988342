"""Team-mode credentials: login sessions (browser cookie) and personal API tokens (Bearer).

Both are random secrets handed out once; the database keeps only their sha256, so a leaked
database does not log anyone in. Sessions expire; both are revocable.
"""

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlmodel import Session, col, delete, select

from server.core.db import release, utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import NotFound, Unauthorized
from server.users import audit
from server.users.changes import AccessChange, Notify
from server.users.models import ApiToken, LoginBody, TokenCreated, TokenPublic, User, UserSession
from server.users.passwords import verify_password
from server.users.throttle import LoginThrottle

LAST_USED_STEP = timedelta(minutes=1)
TOKEN_PREFIX = "mnnwb_"  # noqa: S105 - a marker, not a secret


@dataclass(frozen=True)
class Credential:
    """What authenticated a request: a session or a token, and whose."""

    user_id: str
    kind: str
    id: str


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without a zone; they were stored as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def login(session: Session, throttle: LoginThrottle, body: LoginBody, address: str,
          hours: float) -> tuple[User, str]:
    """Check a name and password (rate limited); return the user and a new session secret."""
    name = body.name.strip().lower()
    throttle.check(name, address)
    user = session.exec(select(User).where(User.name == name)).first()
    stored = user.password_hash if user else None
    # The argon2 check takes a tenth of a second of CPU, more on a busy machine: it holds no
    # database connection, or a burst of sign-ins empties the pool and the rest wait, then fail
    # (15 connections; bench/team_load.py, docs/performance.md "A team on one server").
    session.rollback()
    if not verify_password(stored, body.password) or user is None:
        throttle.failed(name, address)
        audit.record(session, "login.failed", actor=name, address=address)
        session.commit()
        raise Unauthorized("wrong user name or password", code=ErrorCode.BAD_LOGIN)
    throttle.succeeded(name)
    secret = secrets.token_urlsafe(32)
    expires = utcnow() + timedelta(hours=hours)
    session.add(UserSession(user_id=user.id, secret_hash=digest(secret), address=address,
                            expires_at=expires))
    audit.record(session, "login", actor=user.name, address=address)
    # Committed with the user kept loaded: reading it again for the answer would take a connection
    # and hold it until the answer is sent, which waits for a worker thread (all may be hashing).
    release(session)
    return user, secret


def session_credential(session: Session, secret: str) -> Credential | None:
    row = session.exec(select(UserSession).where(UserSession.secret_hash == digest(secret))).first()
    if row is None:
        return None
    if aware(row.expires_at) <= utcnow():
        session.delete(row)
        session.commit()
        return None
    return Credential(row.user_id, "session", row.id)


def token_credential(session: Session, secret: str) -> Credential | None:
    if not secret.startswith(TOKEN_PREFIX):
        return None
    row = session.exec(select(ApiToken).where(ApiToken.secret_hash == digest(secret))).first()
    if row is None:
        return None
    now = utcnow()
    # Recorded at most once a minute: a busy script should not turn every read into a write.
    if row.last_used_at is None or now - aware(row.last_used_at) > LAST_USED_STEP:
        row.last_used_at = now
        session.add(row)
        session.commit()
    return Credential(row.user_id, "token", row.id)


def request_credential(session: Session, bearer: str | None, cookie: str | None) -> Credential | None:
    """Who a request is, by its Bearer token or else its session cookie (the security middleware's lookup)."""
    if bearer:
        return token_credential(session, bearer)
    return session_credential(session, cookie or "")


def logout(session: Session, user: User, session_id: str | None, everywhere: bool,
           address: str | None, notify: Notify) -> None:
    """End this session, or every session of the user (their API tokens stay)."""
    if everywhere:
        revoke_all(session, user, tokens=False)
    elif session_id:
        session.exec(delete(UserSession).where(col(UserSession.id) == session_id))
    audit.record(session, "logout", actor=user.name, address=address, everywhere=everywhere)
    session.commit()
    notify(AccessChange(user.id, "signed out"))


def revoke_all(session: Session, user: User, tokens: bool) -> None:
    """Delete the user's sessions (and tokens if asked); the caller commits."""
    session.exec(delete(UserSession).where(col(UserSession.user_id) == user.id))
    if tokens:
        session.exec(delete(ApiToken).where(col(ApiToken.user_id) == user.id))


def _public(row: ApiToken) -> TokenPublic:
    return TokenPublic(id=row.id, name=row.name, created_at=aware(row.created_at),
                       last_used_at=aware(row.last_used_at) if row.last_used_at else None)


def create_token(session: Session, user: User, name: str, address: str | None) -> TokenCreated:
    """A personal API token, shown this once."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(user_id=user.id, name=name, secret_hash=digest(secret))
    session.add(row)
    audit.record(session, "token.create", actor=user.name, address=address, token=name)
    session.commit()
    session.refresh(row)
    return TokenCreated(**_public(row).model_dump(), token=secret)


def list_tokens(session: Session, user: User) -> list[TokenPublic]:
    query = select(ApiToken).where(ApiToken.user_id == user.id).order_by(col(ApiToken.created_at))
    return [_public(row) for row in session.exec(query)]


def revoke_token(session: Session, user: User, token_id: str, address: str | None,
                 notify: Notify) -> None:
    row = session.get(ApiToken, token_id)
    if row is None or row.user_id != user.id:
        raise NotFound("no such token", code=ErrorCode.NO_TOKEN)
    session.delete(row)
    audit.record(session, "token.revoke", actor=user.name, address=address, token=row.name)
    session.commit()
    notify(AccessChange(user.id, "the API token was revoked"))


def live_credentials(session: Session, credentials: Iterable[Credential]) -> set[Credential]:
    """Those of ``credentials`` that still sign someone in: sessions neither ended nor expired,
    tokens not revoked (removing a user removes both)."""
    wanted = set(credentials)
    session_ids = [c.id for c in wanted if c.kind == "session"]
    token_ids = [c.id for c in wanted if c.kind == "token"]
    now = utcnow()
    rows = session.exec(select(UserSession).where(col(UserSession.id).in_(session_ids)))
    alive = {Credential(r.user_id, "session", r.id) for r in rows if aware(r.expires_at) > now}
    tokens = session.exec(select(ApiToken).where(col(ApiToken.id).in_(token_ids)))
    alive |= {Credential(r.user_id, "token", r.id) for r in tokens}
    return wanted & alive

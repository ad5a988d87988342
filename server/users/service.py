"""Who is calling (the principal the security middleware put on the request), and user accounts.

A principal is ``"local"`` in local mode, or ``"user:<id>"`` for a team-mode login or API token.
"""

import re

from sqlmodel import Session, col, select

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, NotFound, Unauthorized
from server.users import audit
from server.users.changes import AccessChange, Notify
from server.users.models import LOCAL_USER_NAME, Role, User, UserInfo
from server.users.passwords import hash_password

USER_PREFIX = "user:"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def ensure_local_user(session: Session) -> User:
    """The single owner of everything in local mode; created on first start."""
    user = session.exec(select(User).where(User.name == LOCAL_USER_NAME)).first()
    if user is None:
        user = User(name=LOCAL_USER_NAME, role="admin")
        session.add(user)
        session.commit()
        session.refresh(user)
    return user


def user_for_principal(session: Session, principal: str | None) -> User:
    if principal == LOCAL_USER_NAME:
        return ensure_local_user(session)
    if principal and principal.startswith(USER_PREFIX):
        user = session.get(User, principal.removeprefix(USER_PREFIX))
        if user is not None and user.password_hash is not None:
            return user
    raise Unauthorized("authentication required")


def find_user(session: Session, name: str) -> User:
    user = session.exec(select(User).where(User.name == name.strip().lower())).first()
    if user is None or user.password_hash is None:
        raise NotFound(f"no such user: {name}", code=ErrorCode.NO_USER)
    return user


def list_users(session: Session) -> list[UserInfo]:
    query = select(User).where(col(User.password_hash).is_not(None)).order_by(User.name)
    return [UserInfo(name=u.name, role=u.role, created_at=u.created_at) for u in session.exec(query)]


def has_admin(session: Session) -> bool:
    query = select(User).where(User.role == "admin", col(User.password_hash).is_not(None))
    return session.exec(query).first() is not None


def add_user(session: Session, name: str, password: str, role: Role = "member") -> User:
    name = name.strip().lower()
    if not NAME_RE.fullmatch(name) or name == LOCAL_USER_NAME:
        raise Invalid("a user name is 1-64 lowercase letters, digits, dots, dashes or underscores "
                      f"(and not {LOCAL_USER_NAME!r})", code=ErrorCode.BAD_NAME)
    if session.exec(select(User).where(User.name == name)).first() is not None:
        raise Conflict(f"user {name!r} already exists", code=ErrorCode.DUPLICATE)
    user = User(name=name, password_hash=hash_password(password), role=role)
    session.add(user)
    audit.record(session, "user.add", name=name, role=role)
    session.commit()
    session.refresh(user)
    return user


def set_password(session: Session, name: str, password: str, notify: Notify) -> None:
    """Change a password; every session of the user ends with it (their API tokens stay)."""
    from server.users.sessions import revoke_all

    user = find_user(session, name)
    user.password_hash = hash_password(password)
    session.add(user)
    revoke_all(session, user, tokens=False)
    audit.record(session, "user.passwd", name=user.name)
    session.commit()
    notify(AccessChange(user.id, "the password was changed; sign in again"))


def set_role(session: Session, name: str, role: Role, notify: Notify) -> None:
    user = find_user(session, name)
    user.role = role
    session.add(user)
    audit.record(session, "user.role", name=user.name, role=role)
    session.commit()
    notify(AccessChange(user.id, f"your team role is now {role}"))

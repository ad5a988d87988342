"""Who is calling: the principal the security middleware put on the request, as a ``User``."""

from sqlmodel import Session, select

from server.core.errors import Unauthorized
from server.users.models import LOCAL_USER_NAME, User


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
    if principal != LOCAL_USER_NAME:
        raise Unauthorized("authentication required")
    return ensure_local_user(session)

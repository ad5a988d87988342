"""Each user's commit identity, kept in the database: the author of commits, stash entries and
merge commits made by that user when the repository's own config names no ``user.name`` and
``user.email`` (a repository's identity wins, as in git, where it overrides the global one)."""

from sqlmodel import Session

from server.core.db import utcnow
from server.gitflow.models import GitIdentity, GitIdentityBody, GitIdentityOut


def get_identity(session: Session, user_id: str) -> GitIdentityOut:
    row = session.get(GitIdentity, user_id)
    return GitIdentityOut(name=row.name if row else None, email=row.email if row else None)


def set_identity(session: Session, user_id: str, body: GitIdentityBody) -> GitIdentityOut:
    row = session.get(GitIdentity, user_id) or GitIdentity(user_id=user_id, name="", email="")
    row.name, row.email, row.updated_at = body.name.strip(), body.email.strip(), utcnow()
    session.add(row)
    session.commit()
    return GitIdentityOut(name=row.name, email=row.email)


def default_author(session: Session, user_id: str) -> str | None:
    """``Name <email>`` for the user, or None when they have not set one."""
    row = session.get(GitIdentity, user_id)
    return f"{row.name} <{row.email}>" if row else None

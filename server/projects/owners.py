"""Removing a user, whose projects go to another user first (``mnnwb user remove``).

It lives with the projects, not the users: the users' package sits below the projects' and does
not know their table (docs/architecture.md, "Layers").
"""

from sqlmodel import Session, select

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.projects.models import Project
from server.users import audit
from server.users.changes import AccessChange, Notify
from server.users.service import find_user


def remove_user(session: Session, name: str, notify: Notify, transfer_to: str | None = None) -> None:
    """Delete a user; projects they created must go to someone else first."""
    user = find_user(session, name)
    owned = list(session.exec(select(Project).where(Project.owner_id == user.id)))
    if owned and transfer_to is None:
        raise Conflict(f"{user.name} owns {len(owned)} project(s); give them to another user "
                       "with --transfer-to NAME", code=ErrorCode.OWNS_PROJECTS)
    heir = find_user(session, transfer_to) if transfer_to else None
    if heir is not None and heir.id == user.id:
        raise Invalid("cannot transfer projects to the user being removed", code=ErrorCode.BAD_TRANSFER)
    for project in owned:
        project.owner_id = heir.id if heir else project.owner_id
        session.add(project)
    session.flush()
    user_id = user.id
    session.delete(user)
    audit.record(session, "user.remove", name=user.name, transfer_to=transfer_to)
    session.commit()
    notify(AccessChange(user_id, "the account was removed"))

"""The audit log: who did what security-relevant thing, from where, and when."""

from typing import Any

from sqlmodel import Session, col, select

from server.users.models import AuditEvent, AuditPublic


def record(session: Session, action: str, actor: str | None = None,
           address: str | None = None, **data: Any) -> None:
    """Add an event; committed with the caller's change so the log and the change agree."""
    session.add(AuditEvent(action=action, actor=actor, address=address, data=data))


def recent(session: Session, limit: int = 200) -> list[AuditPublic]:
    query = select(AuditEvent).order_by(col(AuditEvent.at).desc()).limit(limit)
    return [AuditPublic.model_validate(e, from_attributes=True) for e in session.exec(query)]

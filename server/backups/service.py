"""Keeping, listing and dropping a person's unsaved edits of a project's files."""

from sqlmodel import Session, col, func, select

from server.backups.models import MAX_BYTES, MAX_FILES, BackupBody, BackupOut, EditorBackup
from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import TooLarge


def list_backups(session: Session, user_id: str, project_id: str) -> list[BackupOut]:
    rows = session.exec(select(EditorBackup).where(
        EditorBackup.user_id == user_id, EditorBackup.project_id == project_id,
    ).order_by(col(EditorBackup.path))).all()
    return [BackupOut(path=r.path, content=r.content, base_etag=r.base_etag, updated_at=r.updated_at)
            for r in rows]


def marks(session: Session, user_id: str, project_id: str) -> list[dict[str, str | None]]:
    """Which files have a backup, for the project page (their text is fetched when it opens)."""
    rows = session.exec(select(EditorBackup.path, EditorBackup.base_etag).where(
        EditorBackup.user_id == user_id, EditorBackup.project_id == project_id,
    ).order_by(col(EditorBackup.path))).all()
    return [{"path": path, "base_etag": etag} for path, etag in rows]


def keep(session: Session, user_id: str, project_id: str, path: str, body: BackupBody) -> None:
    size = len(body.content.encode())
    if size > MAX_BYTES:
        raise TooLarge(f"{path}: {size} bytes of unsaved text, over the {MAX_BYTES >> 20} MiB kept "
                       "for a file; save it to keep it", code=ErrorCode.BACKUP_TOO_LARGE)
    row = session.get(EditorBackup, (user_id, project_id, path))
    if row is None:
        count = session.exec(select(func.count()).select_from(EditorBackup).where(
            EditorBackup.user_id == user_id, EditorBackup.project_id == project_id)).one()
        if count >= MAX_FILES:
            raise TooLarge(f"{count} files of the project already have unsaved edits kept (at most "
                           f"{MAX_FILES}): save or close some", code=ErrorCode.TOO_MANY_BACKUPS)
        row = EditorBackup(user_id=user_id, project_id=project_id, path=path, content=body.content)
    row.content, row.base_etag, row.updated_at = body.content, body.base_etag, utcnow()
    session.add(row)
    session.commit()


def drop(session: Session, user_id: str, project_id: str, path: str) -> None:
    row = session.get(EditorBackup, (user_id, project_id, path))
    if row is not None:
        session.delete(row)
        session.commit()

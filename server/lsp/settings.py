"""Each person's editor settings, kept in the database (docs/ide.md): whether a Python file is
formatted when it is saved. The same for every project and browser the person uses."""

from sqlmodel import Session

from server.core.db import utcnow
from server.lsp.models import EditorSettings, EditorSettingsBody, EditorSettingsOut


def get_settings(session: Session, user_id: str) -> EditorSettingsOut:
    row = session.get(EditorSettings, user_id)
    return EditorSettingsOut(format_on_save=row.format_on_save if row else False)


def set_settings(session: Session, user_id: str, body: EditorSettingsBody) -> EditorSettingsOut:
    row = session.get(EditorSettings, user_id) or EditorSettings(user_id=user_id)
    row.format_on_save, row.updated_at = body.format_on_save, utcnow()
    session.add(row)
    session.commit()
    return EditorSettingsOut(format_on_save=row.format_on_save)

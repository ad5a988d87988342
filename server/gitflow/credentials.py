"""Remembered remote credentials: kept per (user, project, remote), the password sealed with the
data directory's key. They are only ever read back to make a call, never returned or logged, and
only for the URL they were given for: a remote renamed onto another server does not get them."""

from dataclasses import dataclass

from sqlmodel import Session, select

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import NotFound
from server.core.secrets import SecretBox
from server.gitflow.models import GitCredential, SavedCredential, SyncRequest

Credentials = tuple[str | None, str | None]


@dataclass
class CredentialStore:
    """The remembered credentials one user holds for one project."""

    session: Session
    box: SecretBox
    user_id: str
    project_id: str

    def _row(self, remote: str) -> GitCredential | None:
        query = select(GitCredential).where(
            GitCredential.user_id == self.user_id,
            GitCredential.project_id == self.project_id,
            GitCredential.remote == remote,
        )
        return self.session.exec(query).first()

    def for_request(self, body: SyncRequest, url: str) -> Credentials:
        """The credentials a call gave, else the ones remembered for its remote at ``url``."""
        password = body.password.get_secret_value() if body.password else None
        if body.username or password:
            return body.username, password
        row = self._row(body.remote)
        if row is None or row.url != url:
            return None, None
        return row.username, self.box.open(row.sealed_password)

    def remember(self, remote: str, url: str, username: str, password: str) -> None:
        row = self._row(remote) or GitCredential(
            user_id=self.user_id,
            project_id=self.project_id,
            remote=remote,
            url=url,
            username=username,
            sealed_password="",
        )
        row.url = url
        row.username = username
        row.sealed_password = self.box.seal(password)
        row.updated_at = utcnow()
        self.session.add(row)
        self.session.commit()

    def listed(self) -> list[SavedCredential]:
        query = select(GitCredential).where(
            GitCredential.user_id == self.user_id, GitCredential.project_id == self.project_id
        )
        rows = self.session.exec(query.order_by(GitCredential.remote)).all()
        return [SavedCredential(remote=r.remote, username=r.username) for r in rows]

    def forget(self, remote: str, missing_ok: bool = False) -> None:
        row = self._row(remote)
        if row is None:
            if missing_ok:
                return
            raise NotFound(f"no saved credentials for remote {remote}", code=ErrorCode.CREDENTIALS_NOT_FOUND)
        self.session.delete(row)
        self.session.commit()

"""The server's PAI-DLC settings as the API sees them, and the store that keeps them.

Credentials are either the standard Alibaba Cloud chain or an AccessKey pair (plus an optional
STS token) that is sealed with the data directory's key before it reaches the database. They
are write-only: reads return whether a secret is stored and a masked key id, never the secret.
"""

import json
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import Field, SecretStr
from sqlalchemy.engine import Engine
from sqlmodel import Session

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.core.secrets import SecretBox
from server.training.cloud import PaiCredentials, PaiDlcClient, PaiDlcSettings
from server.training.models import PaiDlcConfig
from server.training.stored_settings import still_valid

CredentialSource = Literal["chain", "access_key"]
# What a cloud job cannot run without; the other settings have working defaults.
REQUIRED = ("workspace_id", "oss_bucket")


def missing_settings(settings: PaiDlcSettings | None) -> list[str]:
    """The required settings that are empty (all of them before any are saved)."""
    if settings is None:
        return list(REQUIRED)
    return [name for name in REQUIRED if not getattr(settings, name)]


class PaiDlcOptions(PaiDlcSettings):
    """Where cloud jobs run, plus how often the server polls a running one."""

    poll_seconds: float = Field(default=5.0, ge=0.1, le=300)


class PaiDlcSettingsUpdate(PaiDlcOptions):
    """``access_key_secret`` is write-only: leave it out to keep the stored one (same key id)."""

    credentials: CredentialSource = "chain"
    access_key_id: str | None = Field(default=None, max_length=256)
    access_key_secret: SecretStr | None = None
    security_token: SecretStr | None = None


class PaiDlcSettingsPublic(PaiDlcOptions):
    oss_prefix: str = Field(default="mnn-workbench/", max_length=1025,
                            description="the folder's name and its trailing slash")
    configured: bool
    missing: list[str] = Field(description="required settings not set yet: a cloud job is refused "
                                           "while any is missing")
    credentials: CredentialSource
    access_key_id: str | None = Field(default=None, description="masked")
    has_secret: bool
    has_security_token: bool


@dataclass(frozen=True)
class Connection:
    client: PaiDlcClient
    poll_seconds: float


def mask(key_id: str | None) -> str | None:
    if not key_id:
        return None
    return f"{key_id[:4]}****{key_id[-4:]}" if len(key_id) > 12 else "****"


class PaiDlcStore:
    """Reads and writes the settings row; hands out a client built from the current settings."""

    def __init__(self, engine: Engine, box: SecretBox) -> None:
        self._engine = engine
        self._box = box
        self._lock = threading.Lock()
        self._cached: tuple[datetime, Connection] | None = None

    def _row(self, session: Session) -> PaiDlcConfig | None:
        return session.get(PaiDlcConfig, 1)

    def public(self) -> PaiDlcSettingsPublic:
        with Session(self._engine) as session:
            row = self._row(session)
            if row is None:
                return PaiDlcSettingsPublic(configured=False, missing=missing_settings(None),
                                            credentials="chain", has_secret=False,
                                            has_security_token=False)
            try:
                sealed = self._unsealed(row)
            except Conflict:  # unreadable with the current key: as good as none stored
                sealed = {}
            stored = still_valid(PaiDlcOptions, row.settings)
            missing = missing_settings(PaiDlcOptions.model_validate(stored))
            return PaiDlcSettingsPublic(
                **stored, configured=True, missing=missing,
                credentials="access_key" if row.credential_source == "access_key" else "chain",
                access_key_id=mask(row.access_key_id), has_secret=bool(sealed.get("secret")),
                has_security_token=bool(sealed.get("token")))

    def update(self, body: PaiDlcSettingsUpdate) -> PaiDlcSettingsPublic:
        options = PaiDlcOptions.model_validate(body.model_dump(include=set(PaiDlcOptions.model_fields)))
        with Session(self._engine) as session:
            row = self._row(session) or PaiDlcConfig()
            row.settings = options.model_dump(mode="json")
            row.credential_source = body.credentials
            if body.credentials == "chain":
                row.access_key_id, row.sealed_secret = None, None
            else:
                self._set_keys(row, body)
            row.updated_at = utcnow()
            session.add(row)
            session.commit()
        return self.public()

    def _set_keys(self, row: PaiDlcConfig, body: PaiDlcSettingsUpdate) -> None:
        key_id = body.access_key_id or row.access_key_id
        if not key_id:
            raise Invalid("give the AccessKey id", code=ErrorCode.MISSING_ACCESS_KEY)
        stored = self._unsealed(row) if key_id == row.access_key_id else {}
        secret = body.access_key_secret.get_secret_value() if body.access_key_secret else None
        secret = secret or stored.get("secret")
        if not secret:
            raise Invalid("give the AccessKey secret for this key id", code=ErrorCode.MISSING_ACCESS_KEY)
        token = body.security_token.get_secret_value() if body.security_token else None
        if body.access_key_secret is None and token is None:
            token = stored.get("token")
        row.access_key_id = key_id
        row.sealed_secret = self._box.seal(json.dumps({"secret": secret, "token": token}))

    def _unsealed(self, row: PaiDlcConfig) -> dict[str, str | None]:
        if not row.sealed_secret:
            return {}
        value: dict[str, str | None] = json.loads(self._box.open(row.sealed_secret))
        return value

    def connect(self) -> Connection:
        """A client for the current settings (rebuilt only when they change)."""
        with Session(self._engine) as session:
            row = self._row(session)
            if row is None:
                raise Invalid("PAI-DLC is not set up: save its settings first",
                              code=ErrorCode.PAI_DLC_NOT_CONFIGURED)
            with self._lock:
                if self._cached is not None and self._cached[0] == row.updated_at:
                    return self._cached[1]
                options = PaiDlcOptions.model_validate(still_valid(PaiDlcOptions, row.settings))
                settings = PaiDlcSettings.model_validate(
                    options.model_dump(include=set(PaiDlcSettings.model_fields)))
                connection = Connection(PaiDlcClient(settings, self._credentials(row)),
                                        options.poll_seconds)
                self._cached = (row.updated_at, connection)
                return connection

    def _credentials(self, row: PaiDlcConfig) -> PaiCredentials | None:
        if row.credential_source != "access_key" or not row.access_key_id:
            return None
        sealed = self._unsealed(row)
        token = sealed.get("token")
        return PaiCredentials(access_key_id=row.access_key_id,
                              access_key_secret=SecretStr(sealed.get("secret") or ""),
                              security_token=SecretStr(token) if token else None)

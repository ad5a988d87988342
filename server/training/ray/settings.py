"""Ray cluster settings, the team default and each project's own, and the store that keeps them.

The dashboard's auth token and the S3 secret key are sealed with the data directory's key and
never returned: reads say whether one is stored. A project without settings of its own uses the
team default.
"""

import json
import re
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, ValidatorFunctionWrapHandler, field_validator
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.core.secrets import SecretBox
from server.training.models import RayClusterConfig
from server.training.stored_settings import still_valid

StorageKind = Literal["shared_path", "s3"]
Scope = Literal["project", "default"]
# No spaces or control characters: these reach URLs and HTTP headers.
_PRINTABLE = re.compile(r"[^\x00-\x20\x7f]*")


class RayOptions(BaseModel):
    """Where the cluster's dashboard is and where jobs leave their artifacts."""

    address: str = Field(default="", max_length=2048,
                         description="the Ray dashboard URL, e.g. http://127.0.0.1:8265")
    auth_header: str = Field(default="Authorization", max_length=256,
                             pattern=r"^[!#$%&'*+.^_`|~0-9A-Za-z-]*$",
                             description="an HTTP header name; empty for Authorization")
    storage: StorageKind = "shared_path"
    shared_path: str = Field(default="", max_length=4096, pattern=r"^[^\x00]*$",
                             description="a folder both the cluster and the workbench see")
    s3_endpoint: str = Field(default="", max_length=2048)
    s3_region: str = Field(default="us-east-1", max_length=64, pattern=r"^[A-Za-z0-9_-]*$")
    s3_bucket: str = Field(default="", max_length=256, pattern=r"^[A-Za-z0-9._-]*$")
    s3_prefix: str = Field(default="mnn-workbench/", max_length=1024,
                           description="a folder in the bucket; kept with one trailing slash")
    s3_access_key_id: str = Field(default="", max_length=256)
    poll_seconds: float = Field(default=2.0, ge=0.1, le=300)

    @field_validator("address", "s3_endpoint")
    @classmethod
    def _http_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("give an http:// or https:// URL")
        if not _PRINTABLE.fullmatch(value):
            raise ValueError("a URL has no spaces or control characters")
        return value

    @field_validator("s3_prefix", mode="wrap")
    @classmethod
    def _prefix_is_folder(cls, value: object, check: ValidatorFunctionWrapHandler) -> str:
        # The length limit is the folder's name without its slashes, so a stored prefix (one
        # slash longer than a 1,024-character name) passes it again when read back.
        name: str = check(value.strip("/") if isinstance(value, str) else value)
        return f"{name}/" if name else ""


class RaySettingsUpdate(RayOptions):
    """Secrets are write-only: leave one out to keep the stored one, send "" to clear it."""

    auth_token: SecretStr | None = None
    s3_secret_key: SecretStr | None = None


class RaySettingsPublic(RayOptions):
    s3_prefix: str = Field(default="mnn-workbench/", max_length=1025,
                           description="the folder's name and its trailing slash")
    configured: bool
    scope: Scope
    has_auth_token: bool
    has_s3_secret: bool


class RayCluster(BaseModel):
    """The settings a job runs with, secrets opened (never leaves the server)."""

    options: RayOptions
    auth_token: SecretStr | None = None
    s3_secret_key: SecretStr | None = None

    @property
    def headers(self) -> dict[str, str]:
        token = self.auth_token.get_secret_value() if self.auth_token else ""
        return {self.options.auth_header or "Authorization": token} if token else {}


class RaySettingsStore:
    def __init__(self, engine: Engine, box: SecretBox) -> None:
        self._engine = engine
        self._box = box

    def _row(self, session: Session, project_id: str | None) -> RayClusterConfig | None:
        column = col(RayClusterConfig.project_id)
        where = column.is_(None) if project_id is None else column == project_id
        return session.exec(select(RayClusterConfig).where(where)).first()

    def _secrets(self, row: RayClusterConfig) -> dict[str, str]:
        if not row.sealed_secrets:
            return {}
        try:
            value: dict[str, str] = json.loads(self._box.open(row.sealed_secrets))
        except Conflict:  # unreadable with the current key: as good as none stored
            return {}
        return value

    def public(self, project_id: str | None) -> RaySettingsPublic:
        """A project's settings (or the default it falls back to), or the default itself."""
        with Session(self._engine) as session:
            row = self._row(session, project_id) if project_id else None
            scope: Scope = "project" if row else "default"
            row = row or self._row(session, None)
            if row is None:
                return RaySettingsPublic(configured=False, scope=scope, has_auth_token=False,
                                         has_s3_secret=False)
            secrets = self._secrets(row)
            return RaySettingsPublic(**still_valid(RayOptions, row.settings),
                                     configured=bool(row.settings.get("address")),
                                     scope=scope, has_auth_token="token" in secrets,
                                     has_s3_secret="s3_secret" in secrets)

    def update(self, project_id: str | None, body: RaySettingsUpdate) -> RaySettingsPublic:
        options = RayOptions.model_validate(body.model_dump(include=set(RayOptions.model_fields)))
        with Session(self._engine) as session:
            row = self._row(session, project_id) or RayClusterConfig(project_id=project_id)
            secrets = self._secrets(row)
            for name, value in (("token", body.auth_token), ("s3_secret", body.s3_secret_key)):
                if value is not None:
                    secrets.pop(name, None)
                    if value.get_secret_value():
                        secrets[name] = value.get_secret_value()
            row.settings = options.model_dump(mode="json")
            row.sealed_secrets = self._box.seal(json.dumps(secrets)) if secrets else None
            row.updated_at = utcnow()
            session.add(row)
            session.commit()
        return self.public(project_id)

    def cluster(self, project_id: str) -> RayCluster:
        """The settings a project's jobs use; refused when there are none with an address."""
        with Session(self._engine) as session:
            row = self._row(session, project_id) or self._row(session, None)
            if row is None or not row.settings.get("address"):
                raise Invalid("the Ray cluster is not set up: save its settings first",
                              code=ErrorCode.RAY_NOT_CONFIGURED)
            secrets = self._secrets(row)
            token, s3_secret = secrets.get("token"), secrets.get("s3_secret")
            return RayCluster(options=RayOptions.model_validate(still_valid(RayOptions, row.settings)),
                              auth_token=SecretStr(token) if token else None,
                              s3_secret_key=SecretStr(s3_secret) if s3_secret else None)

"""Payloads of the market API (docs/api.md, "Market")."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.lineage.models import LineageGraph
from server.market.package import (
    PACKAGE_ID,
    VERSION,
    Demo,
    FileEntry,
    InputSpec,
    Metrics,
    OutputSpec,
    ShortText,
)

SourceName = Annotated[str, Field(min_length=1, max_length=100)]
ProjectPath = Annotated[str, Field(min_length=1, max_length=4096)]


class EntryFields(BaseModel):
    id: str
    name: str
    task: str
    summary: str
    source: str
    latest: str
    size_bytes: int | None = None
    accuracy: float | None = None
    latency_ms: float | None = None


class MarketEntry(EntryFields):
    """One package as one source offers it (the same id in two sources is two entries)."""

    versions: list[str]


class VersionInfo(BaseModel):
    version: str
    published_at: datetime | None = None
    publisher: str | None = None
    deprecated: bool = False
    metrics: Metrics
    files: list[FileEntry]
    lineage: LineageGraph | None = None
    inputs: list[InputSpec]
    outputs: list[OutputSpec]
    license: str
    authors: list[str]
    demo: Demo | None = None


class MarketCard(EntryFields):
    """A package's page: its README (of the latest version) and every version in full."""

    readme: str
    license_text: str = ""  # of the latest version's license file, when this server keeps it
    versions: list[VersionInfo]


class SourceStatus(BaseModel):
    """One market source as the market last read it; an offline one says why in ``reason``
    (``dns``, ``timeout``, ``refused``, ``tls``, ``unreachable``, or the error's code)."""

    name: str
    kind: str  # builtin, registry, http, git or hub
    url: str | None = None
    state: Literal["online", "offline"]
    reason: str | None = None
    detail: str | None = None
    packages: int | None = None


class InstallRequest(BaseModel):
    """Install into an existing project (``project_id``) or a new one (``new_project``)."""

    model_config = ConfigDict(extra="forbid")

    source: SourceName | None = None
    project_id: str | None = Field(default=None, max_length=64)
    new_project: ShortText | None = Field(default=None, min_length=1)
    git: bool = Field(default=True, description=(
        "a new project is a Git repository whose first commit holds the package; false: none "
        "(an existing project's repository is never committed to)"))

    @model_validator(mode="after")
    def _one_target(self) -> "InstallRequest":
        if (self.project_id is None) == (self.new_project is None):
            raise ValueError("give exactly one of project_id and new_project")
        return self


class InstallResult(BaseModel):
    project_id: str
    files: list[str]
    demo: str | None = None


class PublishRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=PACKAGE_ID)
    version: str = Field(pattern=VERSION)
    files: list[ProjectPath] = Field(min_length=1, max_length=1000)
    name: ShortText | None = None
    task: ShortText | None = None
    summary: Annotated[str, Field(max_length=1000)] | None = None
    license: ShortText | None = None
    authors: list[ShortText] | None = Field(default=None, max_length=100)
    accuracy: float | None = Field(default=None, ge=0, le=1)
    eval_set: Annotated[str, Field(min_length=1, max_length=500)] | None = None

    @model_validator(mode="after")
    def _accuracy_with_its_set(self) -> "PublishRequest":
        # An accuracy means nothing without what it was measured on, and a set without a figure
        # says nothing.
        if (self.accuracy is None) != (self.eval_set is None):
            raise ValueError("give accuracy and eval_set together")
        return self


class DeprecateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    deprecated: bool = True


class OwnerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    project_id: str = Field(min_length=1, max_length=64)


class PackageOwner(BaseModel):
    """The project that publishes new versions of a registry id, and since when."""

    id: str
    project_id: str | None
    since: datetime

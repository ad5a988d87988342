"""Request and response schemas of the Git flow (DESIGN §5)."""

from typing import Literal

from pydantic import BaseModel, Field, SecretStr

ChangeKind = Literal["added", "modified", "deleted", "renamed", "typechange"]


class FileChange(BaseModel):
    path: str
    kind: ChangeKind
    old_path: str | None = None


class Status(BaseModel):
    branch: str | None
    head: str | None = None
    staged: list[FileChange] = Field(default_factory=list)
    unstaged: list[FileChange] = Field(default_factory=list)
    untracked: list[FileChange] = Field(default_factory=list)
    conflicted: list[FileChange] = Field(default_factory=list)


class Diff(BaseModel):
    path: str
    old: str | None
    new: str | None
    binary: bool
    old_size: int | None = None
    new_size: int | None = None
    old_sha: str | None = None
    new_sha: str | None = None


class CommitInfo(BaseModel):
    sha: str
    parents: list[str]
    author: str
    author_email: str
    committer: str
    time: int
    summary: str
    message: str


class CommitDetail(CommitInfo):
    files: list[FileChange]


class Branch(BaseModel):
    name: str
    commit: str
    current: bool
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0


class Remote(BaseModel):
    name: str
    url: str


class StashEntry(BaseModel):
    index: int
    message: str
    commit: str


class PathsRequest(BaseModel):
    paths: list[str] = Field(min_length=1)


class CommitRequest(BaseModel):
    message: str = Field(min_length=1)
    amend: bool = False
    author: str | None = None


class BranchCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    start_point: str | None = None


class CheckoutRequest(BaseModel):
    branch: str = Field(min_length=1)


class RemoteCreate(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    url: str = Field(min_length=1)


class SyncRequest(BaseModel):
    remote: str = "origin"
    branch: str | None = None
    username: str | None = None
    password: SecretStr | None = None
    timeout: float | None = Field(default=None, gt=0, le=600)


class StashCreate(BaseModel):
    message: str = ""
    include_untracked: bool = False


class FetchResult(BaseModel):
    remote: str
    updated: list[str]


class PullResult(BaseModel):
    remote: str
    branch: str
    outcome: Literal["up_to_date", "fast_forward", "merged", "conflicts"]
    commit: str | None
    conflicts: list[str] = Field(default_factory=list)


class PushResult(BaseModel):
    remote: str
    branch: str
    commit: str


class StashApplied(BaseModel):
    index: int
    dropped: bool
    files: list[str]

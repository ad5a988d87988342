"""Request and response schemas of the Git flow (docs/git.md), and its one table."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, SecretStr
from pydantic import Field as PydanticField
from sqlalchemy import Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from server.core.db import new_id, utcnow

ChangeKind = Literal["added", "modified", "deleted", "renamed", "typechange"]


class FileChange(BaseModel):
    path: str
    kind: ChangeKind
    old_path: str | None = None


class Status(BaseModel):
    branch: str | None
    head: str | None = None
    staged: list[FileChange] = PydanticField(default_factory=list)
    unstaged: list[FileChange] = PydanticField(default_factory=list)
    untracked: list[FileChange] = PydanticField(default_factory=list)
    conflicted: list[FileChange] = PydanticField(default_factory=list)


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
    committer_email: str
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


class TagInfo(BaseModel):
    name: str
    commit: str | None = PydanticField(description="the commit the tag points to, peeled")
    target: str = PydanticField(description="the peeled object (a commit, unless tagging a tree or blob)")
    annotated: bool
    message: str = ""


class RefLabel(BaseModel):
    name: str = PydanticField(description="the short name: main, origin/main, v1.0 or HEAD")
    kind: Literal["head", "branch", "remote", "tag"]
    commit: str


class Remote(BaseModel):
    name: str
    url: str


class StashEntry(BaseModel):
    index: int
    message: str
    commit: str


class PathsRequest(BaseModel):
    paths: list[str] = PydanticField(min_length=1)


class CommitRequest(BaseModel):
    message: str = PydanticField(min_length=1)
    amend: bool = False
    author: str | None = None


class InitRequest(BaseModel):
    """``commit``: start tracking the files already there (*Start tracking with Git*): one
    commit of every file not ignored, a default ``.gitignore`` written first when there is none."""

    commit: bool = False
    author: str | None = None


class BranchCreate(BaseModel):
    name: str = PydanticField(min_length=1, max_length=200)
    start_point: str | None = None


class MergeRequest(BaseModel):
    branch: str = PydanticField(
        min_length=1, max_length=250, description="a branch, remote branch, tag or commit"
    )
    author: str | None = None


class MergeResult(BaseModel):
    branch: str
    outcome: Literal["up_to_date", "fast_forward", "merged", "conflicts"]
    commit: str | None
    conflicts: list[str] = PydanticField(default_factory=list)
    message: str = PydanticField(description="the merge commit's message (offered after conflicts)")


class PickResult(BaseModel):
    commit: str | None = PydanticField(description="the new commit; null when it stopped on conflicts")
    outcome: Literal["committed", "conflicts"]
    conflicts: list[str] = PydanticField(default_factory=list)
    message: str = PydanticField(description="the commit's message (offered when committing after conflicts)")


class TagCreate(BaseModel):
    name: str = PydanticField(min_length=1, max_length=200)
    target: str | None = PydanticField(default=None, description="a commit, branch or tag; HEAD if left out")
    message: str = PydanticField(default="", description="a message makes an annotated tag")


class TagPushResult(BaseModel):
    remote: str
    tag: str
    commit: str


class TextRequest(BaseModel):
    path: str = PydanticField(min_length=1)
    text: str = PydanticField(description="the whole text the index (or the work-tree file) should hold")
    base: str | None = PydanticField(
        default=None, description="the blob id that side had in the diff the text was computed from"
    )


class CheckoutRequest(BaseModel):
    branch: str = PydanticField(min_length=1)


class RemoteCreate(BaseModel):
    name: str = PydanticField(min_length=1, max_length=100)
    url: str = PydanticField(min_length=1)


class SyncRequest(BaseModel):
    remote: str = "origin"
    branch: str | None = None
    username: str | None = None
    password: SecretStr | None = None
    timeout: float | None = PydanticField(default=None, gt=0, le=600)
    remember: bool = PydanticField(
        default=False, description="keep the username and password (encrypted) once the call succeeds"
    )


class TagPushRequest(SyncRequest):
    """A push's body, naming the tag to push (``branch`` is not used)."""

    tag: str = PydanticField(min_length=1, max_length=200)


class BlobRequest(BaseModel):
    rev: str = PydanticField(min_length=1, description="a commit, branch, HEAD, or :0 for the index")
    path: str = PydanticField(min_length=1)


class StashCreate(BaseModel):
    message: str = ""
    include_untracked: bool = False


class FetchResult(BaseModel):
    remote: str
    updated: list[str]
    tags: list[str] = PydanticField(default_factory=list, description="tags the fetch added")


class PullResult(BaseModel):
    remote: str
    branch: str
    outcome: Literal["up_to_date", "fast_forward", "merged", "conflicts"]
    commit: str | None
    conflicts: list[str] = PydanticField(default_factory=list)


class PushResult(BaseModel):
    remote: str
    branch: str
    commit: str


class StashApplied(BaseModel):
    index: int
    dropped: bool
    files: list[str]


class SavedCredential(BaseModel):
    """A remote whose credentials the caller asked to remember; the password never leaves."""

    remote: str
    username: str


class GitCredential(SQLModel, table=True):
    """Remembered remote credentials, one row per (user, project, remote); the password sealed."""

    __tablename__ = "git_credentials"
    __table_args__ = (UniqueConstraint("user_id", "project_id", "remote"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", ondelete="CASCADE", max_length=32)
    project_id: str = Field(foreign_key="projects.id", ondelete="CASCADE", index=True, max_length=32)
    remote: str = Field(max_length=100)
    url: str = Field(max_length=4096)
    username: str = Field(max_length=256)
    sealed_password: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: datetime = Field(default_factory=utcnow)


_NO_BRACKETS = r"^[^<>\n]*[^<>\n\s][^<>\n]*$"


class GitIdentityBody(BaseModel):
    """The name and email commits are made with when a repository's config names none."""

    name: str = PydanticField(min_length=1, max_length=200, pattern=_NO_BRACKETS)
    email: str = PydanticField(min_length=3, max_length=320, pattern=r"^[^<>\s]+@[^<>\s]+$")


class GitIdentityOut(BaseModel):
    name: str | None
    email: str | None


class GitIdentity(SQLModel, table=True):
    """One user's commit identity (in local mode, the one local user's: the server's)."""

    __tablename__ = "git_identities"

    user_id: str = Field(foreign_key="users.id", ondelete="CASCADE", primary_key=True, max_length=32)
    name: str = Field(max_length=200)
    email: str = Field(max_length=320)
    updated_at: datetime = Field(default_factory=utcnow)


class ConflictChunk(BaseModel):
    """``merged``: text both sides agree on (``text``); ``conflict``: the three versions of a hunk."""

    kind: Literal["merged", "conflict"]
    text: str = ""
    base: str = ""
    ours: str = ""
    theirs: str = ""


class ConflictFile(BaseModel):
    path: str
    binary: bool
    ours_deleted: bool = False
    theirs_deleted: bool = False
    base: str | None = None
    ours: str | None = None
    theirs: str | None = None
    chunks: list[ConflictChunk] = PydanticField(default_factory=list)


class ResolveRequest(BaseModel):
    path: str = PydanticField(min_length=1)
    content: str | None = PydanticField(default=None, description="the resolved text")
    take: Literal["ours", "theirs"] | None = PydanticField(default=None, description="or one side whole")


class BlameRange(BaseModel):
    start: int = PydanticField(description="the first line, counting from 1")
    count: int
    commit: str


class Blame(BaseModel):
    path: str
    commit: str = PydanticField(description="the commit the file was read at")
    text: str = PydanticField(description="the file at that commit")
    ranges: list[BlameRange]
    commits: dict[str, CommitInfo] = PydanticField(description="the commits the ranges name")

"""Search and replace payloads."""

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field

MAX_QUERY = 1000


def _no_nul(value: str) -> str:
    # git takes its arguments as C strings: a NUL would cut them short, or not start git at all.
    if "\0" in value:
        raise ValueError("must not contain a NUL character")
    return value


Text = Annotated[str, AfterValidator(_no_nul)]


class SearchQuery(BaseModel):
    """What to look for; ``glob`` limits the files (``*.py``, ``src/**``), comma-separated."""

    q: Text = Field(min_length=1, max_length=MAX_QUERY)
    regex: bool = False
    case: bool = False
    word: bool = False
    glob: Text = Field(default="", max_length=MAX_QUERY)


class SearchMatch(BaseModel):
    """One match: 1-based line and column and its length (in characters); ``preview`` is the
    part of the line around it, starting at character ``preview_start`` (0-based)."""

    kind: Literal["match"] = "match"
    path: str
    line: int
    column: int
    length: int
    preview: str
    preview_start: int


class SearchEnd(BaseModel):
    """The last line of a search stream."""

    kind: Literal["end"] = "end"
    count: int
    truncated: bool


class SearchError(BaseModel):
    """The last line of a plain-text search stream that failed after its first matches went
    out, in place of ``SearchEnd`` (a failure before them is an HTTP error answer)."""

    kind: Literal["error"] = "error"
    detail: str
    code: str


class ReplaceRequest(SearchQuery):
    replacement: Text = Field(max_length=100_000)
    # The files to change: all that match when empty (preview), or exactly these (apply).
    paths: list[Text] = Field(default_factory=list, max_length=10_000)


class LineChange(BaseModel):
    line: int
    before: str
    after: str


class FilePreview(BaseModel):
    path: str
    etag: str
    count: int
    changes: list[LineChange]


class ReplacePreview(BaseModel):
    files: list[FilePreview]
    truncated: bool


class FileTarget(BaseModel):
    path: Text = Field(max_length=4096)
    etag: Text = Field(max_length=64)


class ReplaceApply(SearchQuery):
    replacement: Text = Field(max_length=100_000)
    files: list[FileTarget] = Field(min_length=1, max_length=10_000)


class FileReplaced(BaseModel):
    path: str
    etag: str
    count: int


class FileSkipped(BaseModel):
    path: str
    detail: str
    code: str


class ReplaceResult(BaseModel):
    replaced: list[FileReplaced]
    skipped: list[FileSkipped]

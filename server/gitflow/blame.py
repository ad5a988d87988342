"""Who last changed each line of a file: ``git blame``'s answer, kept per (commit, path).

Blame starts with every line of the file at the start commit and passes lines to a parent whose
version has them (unchanged runs found by ``difflib``), first parent first, as git does; a line no
parent has is the commit's own. Commits are visited newest first, so a commit many children pass
lines to is read once. Commits never change, so an answer is kept for a few (commit, path) pairs
and asked again it is read from memory; versions of the file are read once per blob id.
"""

import heapq
from difflib import SequenceMatcher

from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.repo import Repo

from server.core.cache import BoundedCache
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid, NotFound
from server.gitflow.commits import commit_info
from server.gitflow.models import Blame, BlameRange
from server.gitflow.paths import user_path
from server.gitflow.trees import get_commit, resolve_commit

_answers: BoundedCache[tuple[ObjectID, bytes], Blame] = BoundedCache(16)

# line index in that version -> the line indexes in the start version it became
Lines = dict[int, list[int]]


def blame(repo: Repo, path: str, rev: str = "HEAD") -> Blame:
    raw = user_path(path)
    start = resolve_commit(repo, rev)
    key = (start.id, raw)
    answer = _answers.get(key)
    if answer is None:
        answer = _compute(repo, start, raw, path)
        _answers.put(key, answer)
    return answer


def _blob_id(repo: Repo, commit: Commit, raw: bytes) -> ObjectID | None:
    tree = repo.object_store[commit.tree]
    for part in raw.split(b"/"):
        if not isinstance(tree, Tree) or part not in tree:
            return None
        _, sha = tree[part]
        tree = repo.object_store[sha]
    return tree.id if isinstance(tree, Blob) else None


class _Walk:
    """One blame: the versions read so far, and the commits waiting with the lines passed to them."""

    def __init__(self, repo: Repo, raw: bytes, path: str) -> None:
        self.repo, self.raw, self.path = repo, raw, path
        self.texts: dict[ObjectID, list[bytes]] = {}
        self.pending: dict[ObjectID, tuple[ObjectID, Lines]] = {}
        self.queue: list[tuple[int, ObjectID]] = []
        self.commits: dict[ObjectID, Commit] = {}

    def lines_of(self, sha: ObjectID) -> list[bytes]:
        if sha not in self.texts:
            data = self.repo.object_store[sha].as_raw_string()
            if b"\0" in data[:8000]:
                raise Invalid(f"{self.path} is binary", code=ErrorCode.BINARY_FILE)
            self.texts[sha] = data.splitlines(True)
        return self.texts[sha]

    def give(self, commit: Commit, version: ObjectID, lines: Lines) -> None:
        self.commits.setdefault(commit.id, commit)
        if commit.id in self.pending:
            waiting = self.pending[commit.id][1]
            for line, finals in lines.items():
                waiting.setdefault(line, []).extend(finals)
        else:
            self.pending[commit.id] = (version, lines)
            heapq.heappush(self.queue, (-commit.commit_time, commit.id))

    def pass_to_parent(self, parent: Commit, version: ObjectID, lines: Lines) -> Lines:
        """Give ``parent`` the lines its version has; the lines it does not have are returned."""
        theirs = _blob_id(self.repo, parent, self.raw)
        if theirs is None:
            return lines
        if theirs == version:
            self.give(parent, theirs, lines)
            return {}
        passed, kept = {}, dict(lines)
        for a, b, size in _matching_blocks(self.lines_of(theirs), self.lines_of(version)):
            for k in range(b, b + size):
                finals = kept.pop(k, None)
                if finals is not None:
                    passed[a - b + k] = finals
        if passed:
            self.give(parent, theirs, passed)
        return kept


def _matching_blocks(old: list[bytes], new: list[bytes]) -> list[tuple[int, int, int]]:
    """``difflib``'s matching blocks, the common head and tail taken first: an edit usually
    touches a few lines, and the matcher's cost grows with what it is given."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    middle = SequenceMatcher(None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False)
    blocks = [(0, 0, head)]
    blocks += [(a + head, b + head, size) for a, b, size in middle.get_matching_blocks() if size]
    blocks.append((len(old) - tail, len(new) - tail, tail))
    return blocks


def _compute(repo: Repo, start: Commit, raw: bytes, path: str) -> Blame:
    blob = _blob_id(repo, start, raw)
    if blob is None:
        raise NotFound(f"{path} is not in {start.id.decode()[:7]}", code=ErrorCode.BLOB_NOT_FOUND)
    walk = _Walk(repo, raw, path)
    owner: list[ObjectID | None] = [None] * len(walk.lines_of(blob))
    walk.give(start, blob, {i: [i] for i in range(len(owner))})
    while walk.queue:
        _, sha = heapq.heappop(walk.queue)
        version, lines = walk.pending.pop(sha)
        for parent_id in walk.commits[sha].parents:
            if not lines:
                break
            parent = walk.commits.get(parent_id) or get_commit(repo, parent_id)
            lines = walk.pass_to_parent(parent, version, lines)
        for finals in lines.values():
            for final in finals:
                owner[final] = sha
    text = b"".join(walk.lines_of(blob)).decode("utf-8", "replace")
    return _answer(path, start, text, owner, walk.commits)


def _answer(
    path: str, start: Commit, text: str, owner: list[ObjectID | None], commits: dict[ObjectID, Commit]
) -> Blame:
    ranges: list[BlameRange] = []
    for n, sha in enumerate(owner):
        commit = (sha or start.id).decode("ascii")
        if ranges and ranges[-1].commit == commit:
            ranges[-1].count += 1
        else:
            ranges.append(BlameRange(start=n + 1, count=1, commit=commit))
    used = {r.commit for r in ranges}
    infos = {c.decode("ascii"): commit_info(commits[c]) for c in commits if c.decode("ascii") in used}
    return Blame(path=path, commit=start.id.decode("ascii"), text=text, ranges=ranges, commits=infos)

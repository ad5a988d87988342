"""What a lineage graph shows of a commit: read from the project's repository, never written."""

from typing import Any

from dulwich.errors import NotGitRepository
from dulwich.objects import Commit
from dulwich.repo import Repo


def commit_facts(root: str, sha: str) -> dict[str, Any]:
    """``{sha, message, author, time}``; only ``sha`` when the commit is not in the repository
    (a cloud job's commit that was never fetched, or a repository since replaced)."""
    facts: dict[str, Any] = {"sha": sha}
    try:
        with Repo(root) as repo:
            commit = repo[sha.encode()]
    except (NotGitRepository, KeyError, ValueError):
        return facts
    if isinstance(commit, Commit):
        facts["message"] = commit.message.decode("utf-8", "replace").strip()[:2000]
        facts["author"] = commit.author.decode("utf-8", "replace")
        facts["time"] = commit.commit_time
    return facts

"""Whether the code a training job ran has changed since: the files committed between the job's
commit and HEAD, leaving out what jobs and tools write (outputs, artifacts, model files and
their specs) and the budgets file, which do not change what training does."""

from dulwich.diff_tree import tree_changes
from dulwich.errors import NotGitRepository
from dulwich.objects import Commit, TreeEntry
from dulwich.repo import Repo

NOT_TRAINING_CODE = ("outputs/", "artifacts/")
MODEL_SUFFIXES = (".onnx", ".mnn", ".tflite", ".pb", ".caffemodel", ".pt", ".pth")
SPEC_SUFFIX = ".model.toml"  # a model's spec beside it (docs/model-spec.md)
BUDGETS_FILE = "mnnwb.toml"


def _counts(path: str) -> bool:
    model = path.removesuffix(SPEC_SUFFIX) if path.endswith(SPEC_SUFFIX) else path
    return not (path.startswith(NOT_TRAINING_CODE) or model.endswith(MODEL_SUFFIXES)
                or path == BUDGETS_FILE)


def _path(entry: TreeEntry | None) -> str:
    return entry.path.decode("utf-8", "replace") if entry is not None and entry.path else ""


def changed_since(root: str, commit: str) -> tuple[str | None, list[str]]:
    """``(HEAD, training files changed from commit to HEAD)``; no files when HEAD is that commit
    or the commit is not in the repository (nothing to compare with)."""
    try:
        with Repo(root) as repo:
            head = repo.head()
            old, new = repo[commit.encode()], repo[head]
            if head.decode() == commit or not isinstance(old, Commit) or not isinstance(new, Commit):
                return head.decode(), []
            changes = tree_changes(repo.object_store, old.tree, new.tree)
            paths = {_path(c.new) or _path(c.old) for c in changes}
    except (NotGitRepository, KeyError, ValueError):
        return None, []
    return head.decode(), sorted(p for p in paths if p and _counts(p))

"""One side of a diff as bytes: a file as it is at a revision (downloads, model diffs).

Writing such a blob out as a model file for the model tools is theirs: ``server/modeltools/blobs.py``.
"""

import os

from server.gitflow.diff import blob_at
from server.gitflow.repo import open_repo

Folder = str | os.PathLike[str]


def read_blob(folder: Folder, rev: str, path: str) -> tuple[bytes, str]:
    with open_repo(folder) as repo:
        return blob_at(repo, rev, path)

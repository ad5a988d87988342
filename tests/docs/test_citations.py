"""Comments and docs cite only files a reader of this repository can open."""

import re
import subprocess

from server.core.config import REPO_ROOT

TEXT_SUFFIXES = (".py", ".ts", ".tsx", ".md", ".toml", ".html", ".css", ".yaml", ".yml", ".cfg", ".ini")
# Notes that were never part of the repository, cited by name or by section.
OUTSIDE_NOTES = re.compile(r"\b(DESIGN|RESEARCH|CONVENTIONS)(\.md|\s*§|\))|design notes", re.IGNORECASE)
# A cited source or doc file: a top-level folder of this repository, then a path to such a file.
REPO_PATH = re.compile(
    r"(?<![\w./-])((?:server|device_bridge|tests|bench|docs|docker|webui/src)/[\w./-]*\w"
    r"\.(?:py|ts|tsx|md|toml|html|css|sh|yaml|yml))\b"
)


def _tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    return [p for p in listed.splitlines()
            if p.endswith(TEXT_SUFFIXES) and "/templates/" not in p and (REPO_ROOT / p).exists()]


def test_no_comment_or_doc_cites_notes_outside_the_repository():
    offenders = [
        f"{path}:{number}: {line.strip()}"
        for path in _tracked_text_files()
        for number, line in enumerate((REPO_ROOT / path).read_text(errors="replace").splitlines(), 1)
        if OUTSIDE_NOTES.search(line) and path != "tests/docs/test_citations.py"
    ]
    assert not offenders, "citations of notes outside the repository:\n" + "\n".join(offenders)


def test_every_cited_repository_path_exists():
    missing = []
    for path in _tracked_text_files():
        text = (REPO_ROOT / path).read_text(errors="replace")
        for cited in set(REPO_PATH.findall(text)):
            if not (REPO_ROOT / cited).exists() and "*" not in cited and "<" not in cited:
                missing.append(f"{path}: {cited}")
    assert not missing, "cited files that are not in the repository:\n" + "\n".join(sorted(missing))

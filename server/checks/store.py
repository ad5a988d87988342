"""Check reports kept per commit (``<data_dir>/checks/<project>/<commit>.json``), for the pass /
fail badges in the history and the last passing commit a failure is diffed against."""

from pathlib import Path

from server.checks.models import CheckReport, CommitCheck
from server.core.fsutil import write_text_atomic

MAX_KEPT = 500


def _folder(data_dir: Path, project_id: str) -> Path:
    return data_dir / "checks" / project_id


def save(data_dir: Path, project_id: str, report: CheckReport) -> None:
    """Keep a report of a clean tree under its commit; the oldest go past ``MAX_KEPT``."""
    if not (report.commit and report.clean):
        return
    folder = _folder(data_dir, project_id)
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(folder / f"{report.commit}.json", report.model_dump_json())
    for old in _newest_first(folder)[MAX_KEPT:]:
        old.unlink(missing_ok=True)


def _newest_first(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)


def commit_checks(data_dir: Path, project_id: str) -> list[CommitCheck]:
    """The stored result of every commit that has one, newest first."""
    found = []
    for path in _newest_first(_folder(data_dir, project_id)):
        report = CheckReport.model_validate_json(path.read_text())
        failures = [r for r in report.results if not r.passed]
        found.append(CommitCheck(commit=path.stem, passed=report.passed, failures=failures))
    return found


def last_passing(data_dir: Path, project_id: str) -> str | None:
    return next((c.commit for c in commit_checks(data_dir, project_id) if c.passed), None)

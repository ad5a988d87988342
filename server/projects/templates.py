"""Project templates: ``templates/<name>/template.json`` plus a ``files/`` tree to copy.

Files ending in ``.j2`` are rendered with Jinja2 (context: ``project_name``) and lose the suffix.
"""

import json
import shutil
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.projects.models import TemplateInfo

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"


def list_templates() -> list[TemplateInfo]:
    found: list[tuple[int, TemplateInfo]] = []
    for meta_path in sorted(TEMPLATES_DIR.glob("*/template.json")):
        meta = json.loads(meta_path.read_text())
        info = TemplateInfo(
            name=meta_path.parent.name,
            title=meta["title"],
            description=meta["description"],
            default_command=meta.get("default_command", ""),
        )
        found.append((meta.get("order", 100), info))
    return [info for _, info in sorted(found, key=lambda pair: (pair[0], pair[1].name))]


def get_template(name: str) -> TemplateInfo:
    for info in list_templates():
        if info.name == name:
            return info
    raise Invalid(f"unknown template {name!r}", code=ErrorCode.UNKNOWN_TEMPLATE)


def render_template(name: str, dest: Path, project_name: str) -> None:
    """Write the template's files into ``dest`` (which must not exist yet)."""
    get_template(name)
    source = TEMPLATES_DIR / name / "files"
    env = Environment(autoescape=False, undefined=StrictUndefined, keep_trailing_newline=True)  # noqa: S701 - renders source files, not HTML
    dest.mkdir(parents=True)
    for item in sorted(source.rglob("*")):
        target = dest / item.relative_to(source)
        if item.is_dir():
            target.mkdir(exist_ok=True)
        elif item.suffix == ".j2":
            text = env.from_string(item.read_text()).render(project_name=project_name)
            target.with_suffix("").write_text(text)
        else:
            shutil.copyfile(item, target)

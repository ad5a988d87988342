"""What a project page shows first, sent inside its HTML: the person's saved layout and the
files its visible editors show, so the page asks the server for neither before drawing them
(``webui/src/kernel/prefetch.ts`` takes them from the page's config). On a cold
page those two requests otherwise queue behind the page's own scripts on the browser's six
connections to the server."""

from typing import Any

from server.core.errors import AppError
from server.files import service as files

MAX_FILE_BYTES = 256 * 1024  # a larger file is read by the page itself, as any other
MAX_TOTAL_BYTES = 1024 * 1024


def visible_editor_paths(layout: Any) -> list[str]:
    """The paths of the editors a saved dockview layout shows, the active view of each group:
    ``visibleEditorPaths`` in prefetch.ts, walked without recursion (the layout is the user's)."""
    if not isinstance(layout, dict):
        return []
    panels: dict[str, Any] = layout["panels"] if isinstance(layout.get("panels"), dict) else {}
    active: list[str] = []
    pending = [layout.get("grid")]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if isinstance(node.get("activeView"), str):
                active.append(node["activeView"])
            pending.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            pending.extend(reversed(node))
    paths = []
    for view in active:
        panel = panels.get(view) if view.startswith("editor:") else None
        params = panel.get("params") if isinstance(panel, dict) else None
        if isinstance(params, dict) and isinstance(params.get("path"), str):
            paths.append(params["path"])
    return list(dict.fromkeys(paths))


def first_view(root: str, ui_state: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """``{ui_state, files: {path: FileContent}}``; a file that cannot be read here (gone, too
    large, outside the project) is left to the page, which asks for it and says why."""
    shown: dict[str, Any] = {}
    budget = MAX_TOTAL_BYTES
    for path in visible_editor_paths(ui_state.get("layout")):
        try:
            content = files.read_file(root, path, min(max_bytes, MAX_FILE_BYTES, budget))
        except (AppError, OSError):
            continue
        budget -= content.size
        shown[path] = content.model_dump(mode="json")
    return {"ui_state": ui_state, "files": shown}

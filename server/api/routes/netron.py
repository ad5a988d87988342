"""Netron's web app (the `netron` package's static files) under ``/netron/``, offline.

A model opens by URL: ``/netron/?url=/api/projects/{pid}/files/raw?path=…&identifier=name.onnx``.
The app is sent as shipped except its page, rewritten so it never reaches out: version ``0.0.0``
switches its analytics off, today's build date stops its "please update" lock-up, and a
``consent`` cookie skips the consent prompt and the geo-IP request behind it. A strict
Content-Security-Policy keeps every fetch on this origin whatever the app's code tries.
"""

import importlib.util
import mimetypes
import re
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from server.core.error_codes import ErrorCode
from server.core.errors import NotFound

router = APIRouter(tags=["netron"])

SERVED_SUFFIXES = frozenset({".html", ".js", ".json", ".css", ".ico", ".png"})
SERVED_TYPES = ("text/html", "text/javascript", "application/json", "text/css", "image/x-icon",
                "image/png", "image/vnd.microsoft.icon")
SAFE_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$")
CSP = (
    "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; frame-src 'none'; "
    "object-src 'none'; base-uri 'self'; form-action 'none'"
)
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}
CONSENT_COOKIE = "consent=1; Path=/netron/; Max-Age=31536000; SameSite=Strict"


@cache
def netron_dir() -> Path:
    """The package's folder, found without importing it (its import starts nothing, but costs)."""
    spec = importlib.util.find_spec("netron")
    if spec is None or not spec.submodule_search_locations:
        raise NotFound("the graph viewer (netron) is not installed", code=ErrorCode.NETRON_MISSING)
    return Path(next(iter(spec.submodule_search_locations)))


# Ours, beside the viewer's files: selects the node named by ``?select=`` once the graph shows.
SELECT_SCRIPT = Path(__file__).resolve().parents[2] / "web" / "netron" / "select.js"
SELECT_NAME = "mnnwb-select.js"


def offline_page(html: str, today: str) -> str:
    """Netron's index.html with analytics off, the build date set to ``today`` and our
    ``select`` script added."""
    html = re.sub(r'<meta name="version" content="[^"]*">', '<meta name="version" content="0.0.0">', html)
    script = f'<script type="text/javascript" src="{SELECT_NAME}"></script>'
    html = html.replace("</body>", f"{script}\n</body>", 1)
    return re.sub(r'<meta name="date" content="[^"]*">', f'<meta name="date" content="{today}">', html)


@router.get("/netron/", response_class=HTMLResponse)
def netron_page() -> Response:
    html = (netron_dir() / "index.html").read_text(encoding="utf-8")
    today = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    headers = {**HEADERS, "Set-Cookie": CONSENT_COOKIE}
    return Response(offline_page(html, today), media_type="text/html", headers=headers)


@router.get("/netron/{name}", responses={200: {"content": {t: {} for t in SERVED_TYPES}}})
def netron_file(name: str) -> Response:
    if name == "index.html":
        return netron_page()
    if name == SELECT_NAME:
        return FileResponse(SELECT_SCRIPT, media_type="text/javascript", headers=HEADERS)
    target = netron_dir() / name
    if not SAFE_NAME.match(name) or target.suffix not in SERVED_SUFFIXES or not target.is_file():
        raise NotFound("no such file in the graph viewer", code=ErrorCode.NOT_FOUND)
    media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if target.suffix == ".js":
        media_type = "text/javascript"
    return FileResponse(target, media_type=media_type, headers=HEADERS)

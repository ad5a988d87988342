"""``huggingface_hub`` kept to the configured hub endpoints.

The library shares one HTTP client per process. Ours sends requests only to the endpoints of
configured hub sources and to where they redirect (every other host is refused as if offline,
whatever ``HF_HUB_OFFLINE`` says), takes no proxy or ``.netrc`` from the environment, and never
sends a token. Telemetry is off, which also stops the library from fetching its agent list from
huggingface.co and caching it under ``~/.cache/huggingface``. Files are not downloaded through
the library (see hub.py).
"""

import threading
from urllib.parse import urljoin, urlsplit

import httpx2
from huggingface_hub import HfApi, constants, get_session, set_client_factory
from huggingface_hub.errors import OfflineModeIsEnabled

_allowed: set[str] = set()
_timeouts: dict[str, float] = {}  # endpoint origin → seconds for a connection or a read
_redirected: set[str] = set()
_lock = threading.Lock()
_installed = False
TIMEOUT = 30.0


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{(parts.netloc or '').lower()}"


def _only_configured(request: httpx2.Request) -> None:
    where = origin(str(request.url))
    if where not in _allowed | _redirected:
        raise OfflineModeIsEnabled(f"{request.url.host} is not a configured hub endpoint")
    if where in _timeouts:  # the library asks for no timeout of its own on API calls
        request.extensions = {**request.extensions,
                              "timeout": httpx2.Timeout(_timeouts[where]).as_dict()}


def _note_redirect(response: httpx2.Response) -> None:
    """An endpoint may send its files elsewhere (a CDN): that host is then reachable too."""
    source = str(response.request.url)
    if response.has_redirect_location and origin(source) in _allowed:
        _redirected.add(origin(urljoin(source, response.headers["Location"])))


def _client() -> httpx2.Client:
    return httpx2.Client(event_hooks={"request": [_only_configured], "response": [_note_redirect]},
                         follow_redirects=True, timeout=TIMEOUT, trust_env=False)


def hub_api(endpoint: str, timeout: float = TIMEOUT) -> HfApi:
    """An ``HfApi`` for ``endpoint``, the library's client restricted as described above; each
    connection or read waits at most ``timeout`` seconds."""
    global _installed
    with _lock:
        _allowed.add(origin(endpoint))
        _timeouts[origin(endpoint)] = timeout
        constants.HF_HUB_DISABLE_TELEMETRY = True
        if not _installed:
            set_client_factory(_client)
            _installed = True
    return HfApi(endpoint=endpoint, token=False, library_name="mnn-workbench")


def probe(endpoint: str, org: str) -> None:
    """One request for the organisation's first model, without the library's retries (five,
    up to 8 s apart, meant for a hub that answered before): an unreachable hub fails at once
    with the transport's error. Call after ``hub_api(endpoint)``."""
    get_session().get(f"{endpoint}/api/models", params={"author": org, "limit": 1})

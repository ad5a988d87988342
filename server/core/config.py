"""Settings, read from ``MNNWB_*`` environment variables (pydantic-settings)."""

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# The built UI: in the checkout (``make ui``), or inside an installed wheel (setup.py copies it).
PACKAGED_UI = Path(__file__).resolve().parents[1] / "web" / "dist"


def default_webui_dist() -> Path:
    """The wheel's own copy of the UI when installed from one, else the checkout's build."""
    return PACKAGED_UI if PACKAGED_UI.is_dir() else REPO_ROOT / "webui" / "dist"


# The model hub organisation the MNN team publishes its converted models under.
MNN_HUB_NAME = "mnn-hub"
MNN_HUB_ORG = "taobao-mnn"


class MarketSource(BaseModel):
    """One remote algorithm catalog an admin configured (docs/market.md, "Remote catalogs")."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")
    kind: Literal["http", "git", "hub"]
    url: str = Field(min_length=1, max_length=2048)
    org: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
    ref: str | None = Field(default=None, max_length=255)
    refresh_seconds: float = Field(default=300.0, ge=0)
    # After a failed read the failure is answered from memory this long (at most refresh_seconds),
    # so an unreachable catalog costs one timeout, not one per page.
    retry_seconds: float = Field(default=60.0, ge=0)
    timeout: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _fits_kind(self) -> "MarketSource":
        scheme = self.url.split("://", 1)[0].lower() if "://" in self.url else ""
        schemes = ("http", "https", "git", "file") if self.kind == "git" else ("http", "https")
        if scheme not in schemes:
            raise ValueError(f"a {self.kind} source's url must start with one of {', '.join(schemes)}://")
        if self.name in ("builtin", "registry"):
            raise ValueError(f"{self.name!r} names a built-in source")
        if (self.kind == "hub") != (self.org is not None):
            raise ValueError("org is required for a hub source and only for one")
        return self


class Settings(BaseSettings):
    """Everything configurable; one instance per server (the services' ``settings``)."""

    model_config = SettingsConfigDict(env_prefix="MNNWB_", extra="ignore")

    data_dir: Path = Field(default_factory=lambda: Path.home() / ".local/share/mnn-workbench")
    host: str = "127.0.0.1"
    port: int = 8765
    database_url: str | None = None
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)
    # Team members may reach Git hosts on loopback, link-local or private addresses only if listed.
    git_allowed_hosts: list[str] = Field(default_factory=list)
    upload_max_bytes: int = 512 * 1024 * 1024
    # An uploaded project zip (server/projects/zipped.py): what it may unpack to.
    zip_max_unpacked_bytes: int = Field(default=4 * 1024 * 1024 * 1024, ge=1)
    zip_max_entries: int = Field(default=20_000, ge=1)
    file_read_max_bytes: int = 20 * 1024 * 1024
    # A JSON (or any non-upload) request body, read whole before a route runs (server/api/body_limit.py):
    # room for a file of file_read_max_bytes saved as JSON text, with its escapes.
    json_body_max_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    watch_files: bool = True
    # Status keeps tracked files' stats and re-stats only what inotify reports changed.
    git_status_watch: bool = True
    ws_ping_interval: float = 20.0
    # Team mode: owners and editors get terminals too (admins always do; viewers never).
    team_terminal: bool = False
    # A terminal whose tab went away keeps running this long for the tab to come back.
    terminal_keep_seconds: float = 600.0
    # A project's language server outlives its last connection this long (a tab reload).
    lsp_keep_seconds: float = 60.0
    # What one user may have going at a time, on any number of projects (docs/team.md, "Limits").
    terminals_per_user: int = Field(default=16, ge=1)
    jobs_per_user: int = Field(default=64, ge=1)
    tool_runs_per_user: int = Field(default=16, ge=1)
    # A sandboxed tool run may take a worker started ahead of need in its project's sandbox
    # (docs/model-tools.md, "Isolation"); a spare is taken only once its sandbox is up.
    tool_spare_sandboxed: bool = True
    # Playground runs on this machine (the server's own processes) one person may have at once.
    playground_local_max: int = Field(default=2, ge=1)
    # Team mode: how often the credentials of open sockets and terminals are looked up, so a
    # sign-out, password change or removal made by ``mnnwb user`` (another process) ends them.
    access_check_seconds: float = Field(default=0.5, gt=0)
    # Every process started for a user runs in the sandbox (docs/security.md, "The sandbox");
    # "off" is an admin's decision, shown on every page. Jobs and terminals reach the internet
    # or nothing; tool workers and exporters never have a network.
    sandbox: Literal["on", "off"] = "on"
    sandbox_network: Literal["none", "outbound"] = "outbound"
    sandbox_memory_mb: int | None = Field(default=None, ge=64)
    sandbox_pids: int | None = Field(default=4096, ge=8)
    sandbox_cpu_seconds: int | None = Field(default=None, ge=1)
    ws_queue_size: int = 1000
    replay_size: int = 2000
    webui_dist: Path = Field(default_factory=default_webui_dist)
    secure_cookies: bool = False
    # Team mode: users log in with passwords; the local token is no longer accepted.
    mode: Literal["local", "team"] = "local"
    session_hours: float = 72.0
    login_max_failures: int = 5
    login_max_failures_per_address: int = 20
    login_window_seconds: float = 900.0
    # Only these peers may set X-Forwarded-For / X-Forwarded-Proto (a reverse proxy).
    trusted_proxies: list[str] = Field(default_factory=list)
    certfile: Path | None = None
    keyfile: Path | None = None
    # Remote algorithm catalogs: a JSON list of MarketSource objects (docs/market.md).
    market_sources: list[MarketSource] = Field(default_factory=list)
    # The MNN team's model hub organisation, a market source out of the box unless turned off;
    # the URL may name a mirror of the hub (docs/market.md, "The MNN hub").
    market_mnn_hub: bool = True
    market_mnn_hub_url: str = "https://huggingface.co"
    market_mnn_hub_timeout: float = Field(default=5.0, gt=0)
    # An LLM export may run a model's own code (transformers' trust_remote_code; docs/llm.md).
    llm_allow_remote_code: bool = False

    @model_validator(mode="after")
    def _unique_market_sources(self) -> "Settings":
        names = [source.name for source in self.market_sources]
        if len(names) != len(set(names)):
            raise ValueError("MNNWB_MARKET_SOURCES names a source twice")
        self.mnn_hub_source()  # a bad MNNWB_MARKET_MNN_HUB_URL stops the start, named
        return self

    def mnn_hub_source(self) -> MarketSource | None:
        """The MNN hub as a source, None when turned off or replaced by a configured source of
        its name."""
        if not self.market_mnn_hub or any(s.name == MNN_HUB_NAME for s in self.market_sources):
            return None
        try:
            return MarketSource(name=MNN_HUB_NAME, kind="hub", url=self.market_mnn_hub_url,
                                org=MNN_HUB_ORG, timeout=self.market_mnn_hub_timeout)
        except ValidationError as exc:
            raise ValueError(f"MNNWB_MARKET_MNN_HUB_URL: {exc.errors()[0]['msg']}") from None

    def all_market_sources(self) -> list[MarketSource]:
        """The MNN hub (unless off), then the configured catalogs."""
        hub = self.mnn_hub_source()
        return [hub, *self.market_sources] if hub is not None else list(self.market_sources)

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'workbench.db'}"

    @property
    def team(self) -> bool:
        return self.mode == "team"

    @property
    def tls(self) -> bool:
        return self.certfile is not None

    @property
    def projects_dir(self) -> Path:
        return self.data_dir / "projects"

    @property
    def token_file(self) -> Path:
        return self.data_dir / "token"

    def ensure_dirs(self) -> None:
        """Create the data directory layout (docs/quickstart.md) with private permissions."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)
        for sub in ("projects", "jobs", "tool-runs"):
            (self.data_dir / sub).mkdir(exist_ok=True)

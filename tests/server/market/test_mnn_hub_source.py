"""The MNN team's hub organisation is a market source out of the box. Here it can never be
reached: it is shown offline with the reason — name not resolved, connection refused, no answer
in time, no TLS — and the other sources still list; a failure is kept for a while, so the market
waits for the hub once, not on every page. An admin turns it off or replaces it."""

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from server.core.config import REPO_ROOT, Settings
from tests.conftest import make_client, migrated_data_dir, seed_builtins
from tests.fakes.static_http import static_http


@contextmanager
def silent_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A port that accepts connections and never answers; yields its URL and the connections."""
    accepted: list[socket.socket] = []
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.2)
        stop = threading.Event()

        def accept() -> None:
            while not stop.is_set():
                try:
                    accepted.append(listener.accept()[0])
                except TimeoutError:
                    continue

        thread = threading.Thread(target=accept, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
        finally:
            stop.set()
            thread.join()
            for conn in accepted:
                conn.close()


def closed_port() -> str:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{unused.getsockname()[1]}"  # nothing listens there


def settings_for(tmp_path: Path, built: Path, **given) -> Settings:
    settings = Settings(data_dir=migrated_data_dir(tmp_path / "data"),
                        webui_dist=REPO_ROOT / "webui" / "dist", **given)
    seed_builtins(settings, built)
    return settings


def hub_status(client) -> dict:
    answer = client.get("/api/market-sources")
    assert answer.status_code == 200, answer.text
    statuses = {s["name"]: s for s in answer.json()}
    builtin = len(client.get("/api/market", params={"source": "builtin"}).json())
    assert (statuses["builtin"]["state"], statuses["builtin"]["packages"]) == ("online", builtin)
    return statuses["mnn-hub"]


def test_the_hub_is_configured_out_of_the_box() -> None:
    defaults = Settings.model_fields
    assert defaults["market_mnn_hub_url"].default == "https://huggingface.co"
    assert defaults["market_mnn_hub"].default is True
    [hub] = Settings(market_mnn_hub_url="https://hub.example.com").all_market_sources()
    assert (hub.name, hub.kind, hub.url, hub.org) == ("mnn-hub", "hub", "https://hub.example.com",
                                                      "taobao-mnn")


@pytest.mark.parametrize("reason", ["refused", "dns", "tls"])
def test_an_unreachable_hub_is_offline_with_its_reason_and_the_rest_lists(
        tmp_path: Path, builtin_build: Path, reason: str) -> None:
    with static_http(tmp_path) as (plain_url, _):
        url = {"refused": closed_port(), "dns": "http://mnn-hub.invalid",
               # a server that speaks plain HTTP where TLS was asked for
               "tls": plain_url.replace("http://", "https://").rstrip("/")}[reason]
        settings = settings_for(tmp_path, builtin_build, market_mnn_hub_url=url)
        with make_client(settings) as client:
            listed = client.get("/api/market")
            assert listed.status_code == 200, listed.text
            assert {e["source"] for e in listed.json()} == {"builtin"}
            hub = hub_status(client)
    assert (hub["state"], hub["reason"], hub["url"], hub["kind"]) == ("offline", reason, url, "hub")
    assert hub["detail"] and hub["packages"] is None


def test_a_hub_that_never_answers_is_waited_for_once(tmp_path: Path, builtin_build: Path) -> None:
    with silent_server() as (url, accepted):
        settings = settings_for(tmp_path, builtin_build, market_mnn_hub_url=url,
                                market_mnn_hub_timeout=1)
        with make_client(settings) as client:
            assert client.get("/api/market").status_code == 200
            assert len(accepted) == 1
            hub = hub_status(client)
            again = client.get("/api/market", params={"q": "digits"})
            assert [e["id"] for e in again.json()] == ["digits"]
            assert len(accepted) == 1  # the failure was answered from memory
    assert (hub["state"], hub["reason"]) == ("offline", "timeout")


def test_an_admin_turns_the_hub_off_or_replaces_it(tmp_path: Path, builtin_build: Path) -> None:
    settings = settings_for(tmp_path / "off", builtin_build, market_mnn_hub=False)
    with make_client(settings) as client:
        names = [s["name"] for s in client.get("/api/market-sources").json()]
    assert names == ["builtin", "registry"]
    mirror = closed_port()
    settings = settings_for(tmp_path / "mirror", builtin_build, market_sources=[
        {"name": "mnn-hub", "kind": "hub", "url": mirror, "org": "taobao-mnn", "timeout": 2}])
    with make_client(settings) as client:
        hub = hub_status(client)
    assert (hub["url"], hub["reason"]) == (mirror, "refused")
    with pytest.raises(ValueError, match="MNNWB_MARKET_MNN_HUB_URL"):
        Settings(market_mnn_hub_url="ftp://mirror.example.com")

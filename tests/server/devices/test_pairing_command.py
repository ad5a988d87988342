"""Which server addresses the pairing dialog offers, and the line it writes for each."""

import socket
from pathlib import Path

import psutil
import pytest

from server.core.config import Settings
from server.core.errors import Invalid
from server.devices.pairing_command import pairing_command, server_urls

SHA = "ab" * 32


def lan_addresses() -> list[str]:
    return [a.address for addresses in psutil.net_if_addrs().values() for a in addresses
            if a.family == socket.AF_INET and not a.address.startswith("127.")]


def test_bound_to_all_interfaces_it_offers_each_address_the_host_check_accepts(tmp_path: Path) -> None:
    lan = lan_addresses()
    if not lan:
        pytest.fail("this machine has no IPv4 address besides loopback to test with")
    settings = Settings(data_dir=tmp_path, host="0.0.0.0", port=8765, allowed_hosts=[lan[0], "wb.lan"])
    urls = server_urls(settings, "http://127.0.0.1:8765/")
    assert urls == ["http://127.0.0.1:8765", f"http://{lan[0]}:8765", "http://wb.lan:8765"]


def test_bound_to_loopback_it_offers_the_browsers_address_only(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, host="127.0.0.1", port=8765)
    assert server_urls(settings, "http://localhost:8765/") == ["http://localhost:8765",
                                                               "http://127.0.0.1:8765"]


def test_the_line_holds_the_url_code_and_sha256_and_nothing_a_shell_would_expand() -> None:
    line = pairing_command("http://[fe80::1]:8765/", "Ab-_9", SHA)
    assert line.startswith('python3 -c "') and line.endswith('"')
    body = line[len('python3 -c "') : -1]
    assert "s='http://[fe80::1]:8765'" in body and "c='Ab-_9'" in body and f"=='{SHA}'" in body
    assert not set(body) & set('"$`\\!')
    with pytest.raises(Invalid):
        pairing_command("http://evil$(reboot):8765", "Ab", SHA)

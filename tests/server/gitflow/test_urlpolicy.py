"""The members' Git URL policy on addresses no test server can listen on (link-local, LAN, …)."""

import socket

import pytest
from dulwich.repo import Repo

from server.core.errors import Forbidden
from server.gitflow.transport import open_client
from server.gitflow.urlpolicy import UNRESTRICTED, UrlPolicy

MEMBER = UrlPolicy(restricted=True)
INTERNAL = ["127.0.0.1", "::1", "169.254.169.254", "fe80::1%eth0", "10.0.0.5", "172.16.3.4", "192.168.1.20",
            "100.64.0.1", "fd00::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "0.0.0.0", "224.0.0.1", "ff02::1"]


@pytest.mark.parametrize("address", INTERNAL)
def test_members_may_not_reach_internal_addresses(address: str):
    with pytest.raises(Forbidden) as refused:
        MEMBER.check_address("git.example", address)
    assert refused.value.code == "git_host_forbidden"
    UNRESTRICTED.check_address("git.example", address)


def test_public_addresses_pass():
    # each public address next to a private one of the same shape: only the second is refused
    for public, private in (("140.82.121.3", "10.82.121.3"), ("2606:50c0:8000::153", "fd06:50c0:8000::153")):
        assert MEMBER.check_address("github.com", public) is None
        with pytest.raises(Forbidden) as refused:
            MEMBER.check_address("github.com", private)
        assert refused.value.code == "git_host_forbidden" and private in str(refused.value)


def test_the_allow_list_takes_names_addresses_and_networks():
    allowed = UrlPolicy(restricted=True, allowed=("git.lan", "10.1.0.0/16", "192.168.1.20", "[fd00::7]"))
    allowed.check_address("GIT.lan", "192.168.9.9")
    allowed.check_address("other", "10.1.200.3")
    allowed.check_address("other", "::ffff:10.1.0.1")
    allowed.check_address("other", "192.168.1.20")
    allowed.check_address("other", "fd00::7")
    for address in ("10.2.0.1", "192.168.1.21", "169.254.169.254"):
        with pytest.raises(Forbidden):
            allowed.check_address("other", address)


@pytest.mark.parametrize("url", ["file:///srv/projects/alice/secret", "/srv/projects/alice/secret",
                                 "../alice/secret", "http://", "git://:9418/x", "http://host:99999/x"])
def test_members_may_not_name_local_repositories(url: str):
    with pytest.raises(Forbidden) as refused:
        MEMBER.check(url)
    assert refused.value.code == "git_url_forbidden"
    UNRESTRICTED.check(url)


def test_a_literal_address_in_the_url_is_checked_without_a_lookup():
    with pytest.raises(Forbidden):
        MEMBER.check("http://[::1]:8080/x.git")
    with pytest.raises(Forbidden):
        MEMBER.check("git://169.254.169.254/x")


def test_a_git_connection_is_checked_where_it_lands_before_a_byte_is_sent(tmp_path):
    """As if the name's DNS answer changed after the URL was checked: the socket's peer decides."""
    listener = socket.create_server(("127.0.0.1", 0))
    url = f"git://127.0.0.1:{listener.getsockname()[1]}/x.git"
    client, path = open_client(url, None, None, 5.0, UrlPolicy(restricted=True, allowed=("127.0.0.1",)))
    client.policy = MEMBER  # type: ignore[attr-defined]
    try:
        with Repo.init(str(tmp_path)) as repo, pytest.raises(Forbidden) as refused:
            client.fetch(path, repo)
        assert refused.value.code == "git_host_forbidden"
        peer, _ = listener.accept()
        with peer:
            peer.settimeout(5)
            assert peer.recv(100) == b""
    finally:
        client.close()
        listener.close()

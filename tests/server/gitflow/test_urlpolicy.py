"""The members' Git URL policy on addresses no test server can listen on (link-local, LAN, …)."""

import pytest

from server.core.errors import Forbidden
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
    for address in ("140.82.121.3", "2606:50c0:8000::153"):
        MEMBER.check_address("github.com", address)


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

"""The one line a device runs to pair, for each address the workbench listens on, and its QR code.

The line needs nothing but ``python3``: it downloads ``agent.pyz`` with ``urllib`` (the pairing
code is the bearer), refuses it unless its sha256 is the one written into the line, saves it in
the agent home and runs it with the code in an environment variable. The agent then installs its
own missing packages (``device_bridge/agent/packages.py``) and pairs.
"""

import ipaddress
import re
import socket
from urllib.parse import urlsplit

import psutil
import segno

from device_bridge.agent.update import AGENT_PATH
from server.core.config import LOOPBACK_HOSTS, Settings
from server.core.errors import Invalid
from server.devices.models import PairingOption

# Inside the double quotes of a shell word: no quote, $, backtick, backslash or ! may appear.
SAFE_URL = re.compile(r"^https?://[A-Za-z0-9.:\[\]_%-]+$")
WILDCARDS = ("0.0.0.0", "::")  # noqa: S104 - bind addresses, compared against, never bound
ONE_LINER = (
    "import os,sys,hashlib,urllib.request as u;s='{url}';c='{code}';"
    "d=os.environ.get('MNNWB_AGENT_HOME') or os.path.expanduser('~/.mnnwb-agent');"
    "os.makedirs(d,exist_ok=True);"
    "b=u.urlopen(u.Request(s+'" + AGENT_PATH + "',headers={{'Authorization':'Bearer '+c}})).read();"
    "hashlib.sha256(b).hexdigest()=='{sha}' or "
    "sys.exit('mnnwb: the downloaded agent does not match its sha256: not running it');"
    "p=os.path.join(d,'agent.pyz');open(p,'wb').write(b);os.environ['MNNWB_PAIRING_CODE']=c;"
    "os.execv(sys.executable,[sys.executable,p,'--server',s])"
)


def pairing_command(server_url: str, code: str, sha256: str) -> str:
    url = server_url.rstrip("/")
    if not SAFE_URL.match(url) or not re.fullmatch(r"[A-Za-z0-9_-]+", code):
        raise Invalid(f"cannot write a pairing command for the address {url!r}")
    return 'python3 -c "' + ONE_LINER.format(url=url, code=code, sha=sha256) + '"'


def qr_data_uri(text: str) -> str:
    """The text as a QR code (an SVG data URI), for a phone's camera to read."""
    return str(segno.make(text, error="m", micro=False).svg_data_uri(scale=4, border=4))


def _interface_addresses() -> list[str]:
    found = []
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family == socket.AF_INET and not address.address.startswith("127."):
                found.append(address.address)
    return sorted(found, key=ipaddress.ip_address)


def _hosts_accepted(settings: Settings) -> set[str]:
    """The Host names the security middleware lets through (see ``server/core/security.py``)."""
    accepted = {*LOOPBACK_HOSTS, *(h.lower() for h in settings.allowed_hosts)}
    if settings.host not in WILDCARDS:
        accepted.add(settings.host.lower())
    return accepted


def server_urls(settings: Settings, browser_url: str) -> list[str]:
    """The browser's own address first, then every other address a device could use: those the
    server listens on (every interface when bound to all) that its Host check accepts."""
    browser = browser_url.rstrip("/")
    scheme = urlsplit(browser).scheme or "http"
    if settings.host in WILDCARDS:
        hosts = [*_interface_addresses(), *sorted(settings.allowed_hosts)]
    else:
        hosts = [settings.host]
    accepted = _hosts_accepted(settings)
    urls = [browser]
    for host in hosts:
        shown = f"[{host}]" if ":" in host else host
        url = f"{scheme}://{shown}:{settings.port}"
        if host.lower() in accepted and url not in urls:
            urls.append(url)
    return urls


def pairing_options(settings: Settings, browser_url: str, code: str,
                    sha256: str) -> list[PairingOption]:
    options = []
    for url in server_urls(settings, browser_url):
        command = pairing_command(url, code, sha256)
        options.append(PairingOption(url=url, command=command, qr=qr_data_uri(command)))
    return options

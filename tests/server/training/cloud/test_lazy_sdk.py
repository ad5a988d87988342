"""Alibaba Cloud's SDKs are imported by the first cloud client, not by the server's start (about a
second of every start on a 2-core machine, docs/performance.md "First start")."""

import json
import subprocess
import sys

from server.core.config import REPO_ROOT

SDKS = ("alibabacloud_", "Tea", "darabonba")
SCRIPT = """
import json, sys
from pydantic import SecretStr

def sdks():
    return sorted({name.split(".")[0] for name in sys.modules if name.startswith(tuple(sys.argv[1:]))})

import server.app
started = sdks()
from server.training.cloud import PaiCredentials, PaiDlcClient, PaiDlcSettings
from server.training.cloud.artifacts import new_crc64
listed = sdks()
keys = PaiCredentials(access_key_id="id", access_key_secret=SecretStr("secret"))
PaiDlcClient(PaiDlcSettings(endpoint="127.0.0.1:1", oss_bucket="b"), keys)
crc = new_crc64()
crc.update(b"123456789")
print(json.dumps([started, listed, sdks(), crc.sum64()]))
"""


def test_the_server_starts_without_the_cloud_sdks_and_a_client_brings_them() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, *SDKS], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    started, listed, with_client, crc = json.loads(done.stdout.splitlines()[-1])
    assert started == [] and listed == []
    assert {"alibabacloud_pai_dlc20201203", "alibabacloud_aiworkspace20210204",
            "alibabacloud_oss_v2", "alibabacloud_credentials", "darabonba"} <= set(with_client)
    assert crc == 0x995DC9BBDF1939FA  # CRC-64/XZ (ECMA-182) of "123456789", the check value

"""Credentials: the standard Alibaba Cloud chain, and secrets that never print."""

import os
import subprocess
import sys
from pathlib import Path

from pydantic import SecretStr

from server.training.cloud import PaiCredentials, PaiDlcClient, PaiDlcSettings
from tests.fakes.paidlc import Emulator

from .conftest import BUCKET, PROXY_VARS

CHAIN_SCRIPT = """
import json, sys
from pydantic import SecretStr

from server.training.cloud import PaiDlcClient, PaiDlcSettings
dlc = PaiDlcClient(PaiDlcSettings.model_validate_json(sys.argv[1]))  # no explicit keys
specs = dlc.list_ecs_specs()
print(json.dumps([len(specs), [a.path for a in dlc.list_artifacts("chain/")]]))
"""


def test_default_chain_reads_the_standard_environment(
    dlc_settings: PaiDlcSettings, emulator: Emulator
) -> None:
    # The credentials library reads its environment once, at import: use a fresh process.
    emulator.store.put(BUCKET, "chain/x.txt", b"x")
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    env.update(
        ALIBABA_CLOUD_ACCESS_KEY_ID=emulator.access_key_id,
        ALIBABA_CLOUD_ACCESS_KEY_SECRET=emulator.access_key_secret,
    )
    done = subprocess.run(
        [sys.executable, "-c", CHAIN_SCRIPT, dlc_settings.model_dump_json()],
        env=env,
        cwd=Path(__file__).parents[4],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == '[5, ["x.txt"]]'


def test_sts_token_is_sent_and_kept_secret(dlc_settings: PaiDlcSettings, emulator: Emulator) -> None:
    creds = PaiCredentials(
        access_key_id=emulator.access_key_id,
        access_key_secret=SecretStr(emulator.access_key_secret),
        security_token=SecretStr("sts-token-value"),
    )
    assert PaiDlcClient(dlc_settings, creds).list_ecs_specs()
    shown = repr(creds) + str(creds) + creds.model_dump_json()
    assert emulator.access_key_secret not in shown and "sts-token-value" not in shown

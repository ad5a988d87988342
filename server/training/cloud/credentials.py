"""Credentials for the three SDKs: explicit keys, or the standard Alibaba Cloud chain.

The chain (``alibabacloud_credentials`` default provider) reads, in order, the
``ALIBABA_CLOUD_ACCESS_KEY_ID``/``..._SECRET`` environment variables, OIDC role settings,
``~/.alibabacloud/credentials.ini``/``~/.aliyun/config.json`` and the ECS instance role.
"""

import alibabacloud_oss_v2 as oss
from alibabacloud_credentials.client import Client as CredentialClient
from alibabacloud_credentials.models import Config as CredentialConfig

from .settings import PaiCredentials


def credential_client(credentials: PaiCredentials | None) -> CredentialClient:
    """A credential client for the OpenAPI SDKs; ``None`` means the default chain."""
    if credentials is None:
        return CredentialClient()
    secret = credentials.access_key_secret.get_secret_value()
    if credentials.security_token:
        return CredentialClient(
            CredentialConfig(
                type="sts",
                access_key_id=credentials.access_key_id,
                access_key_secret=secret,
                security_token=credentials.security_token.get_secret_value(),
            )
        )
    return CredentialClient(
        CredentialConfig(type="access_key", access_key_id=credentials.access_key_id, access_key_secret=secret)
    )


class ChainCredentialsProvider(oss.credentials.CredentialsProvider):
    """Feeds the OSS client from the same credential client as the OpenAPI clients."""

    def __init__(self, client: CredentialClient) -> None:
        self._client = client

    def get_credentials(self) -> oss.credentials.Credentials:
        model = self._client.get_credential()
        return oss.credentials.Credentials(
            model.access_key_id, model.access_key_secret, model.security_token or None
        )

    def __repr__(self) -> str:
        return "ChainCredentialsProvider()"

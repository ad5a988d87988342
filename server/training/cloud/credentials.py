"""Credentials for the three SDKs: explicit keys, or the standard Alibaba Cloud chain.

The chain (``alibabacloud_credentials`` default provider) reads, in order, the
``ALIBABA_CLOUD_ACCESS_KEY_ID``/``..._SECRET`` environment variables, OIDC role settings,
``~/.alibabacloud/credentials.ini``/``~/.aliyun/config.json`` and the ECS instance role.
The SDKs are imported when first used (see ``errors.py``).
"""

from typing import TYPE_CHECKING

from .settings import PaiCredentials

if TYPE_CHECKING:
    import alibabacloud_oss_v2 as oss
    from alibabacloud_credentials.client import Client as CredentialClient


def credential_client(credentials: PaiCredentials | None) -> "CredentialClient":
    """A credential client for the OpenAPI SDKs; ``None`` means the default chain."""
    from alibabacloud_credentials.client import Client as CredentialClient
    from alibabacloud_credentials.models import Config as CredentialConfig

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


def chain_provider(client: "CredentialClient") -> "oss.credentials.CredentialsProvider":
    """Feeds the OSS client from the same credential client as the OpenAPI clients."""
    import alibabacloud_oss_v2 as oss

    def credentials() -> oss.credentials.Credentials:
        model = client.get_credential()
        return oss.credentials.Credentials(
            model.access_key_id, model.access_key_secret, model.security_token or None
        )

    return oss.credentials.CredentialsProviderFunc(credentials)

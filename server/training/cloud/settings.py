"""PAI-DLC settings and explicitly stored credentials (pydantic models)."""

import re
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, ValidatorFunctionWrapHandler, field_validator

DEFAULT_IMAGE = "dsw-registry.cn-hangzhou.cr.aliyuncs.com/pai/pytorch-training:2.3-cpu-py311-ubuntu22.04"
# A host name, an IPv4 or a bracketed IPv6 address, then an optional port.
HOST_PORT = re.compile(r"(?:[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


class PaiDlcSettings(BaseModel):
    """Where and how jobs run. Endpoints are ``host[:port]`` for the OpenAPI services.

    Leave ``endpoint``/``workspace_endpoint``/``oss_endpoint`` empty to use the public
    endpoints of ``region``; set them (with ``protocol="http"``) to talk to a local emulator.
    """

    region: str = Field(default="cn-hangzhou", max_length=64, pattern=r"^[a-z0-9-]+$",
                        description="a region id, e.g. cn-hangzhou")
    endpoint: str | None = Field(default=None, max_length=2048)
    workspace_endpoint: str | None = Field(default=None, max_length=2048)
    protocol: Literal["https", "http"] = "https"
    workspace_id: str = Field(default="", max_length=256)
    resource_id: str = Field(default="", max_length=256)
    image: str = Field(default=DEFAULT_IMAGE, max_length=2048)
    ecs_spec: str = Field(default="ecs.g6.xlarge", max_length=256)
    pod_count: int = Field(default=1, ge=1, le=64)
    job_type: str = Field(default="PyTorchJob", max_length=256)
    oss_bucket: str = Field(default="", max_length=256)
    oss_prefix: str = Field(default="mnn-workbench/", max_length=1024,
                            description="a folder in the bucket; kept with one trailing slash")
    oss_endpoint: str | None = Field(default=None, max_length=2048)
    oss_path_style: bool = False
    # Bounded: the SDK takes it in whole milliseconds, and infinity (JSON's 1e999) has none.
    timeout_seconds: float = Field(default=30.0, ge=0.1, le=600)

    @field_validator("endpoint", "workspace_endpoint")
    @classmethod
    def _no_scheme(cls, value: str | None) -> str | None:
        # The OpenAPI SDK builds the Host header from this string; a scheme would corrupt it.
        if value and "://" in value:
            raise ValueError("give host[:port] without a scheme; choose http/https with protocol")
        if value and not HOST_PORT.fullmatch(value):
            raise ValueError("give host[:port]: a host name or an IP address, then an optional port")
        return value or None

    @field_validator("oss_endpoint")
    @classmethod
    def _url_or_host(cls, value: str | None) -> str | None:
        host = value.split("://", 1)[1] if value and value.startswith(("http://", "https://")) else value
        if host and not HOST_PORT.fullmatch(host.rstrip("/")):
            raise ValueError("give http(s)://host[:port] or host[:port]")
        return value or None

    @field_validator("oss_prefix", mode="wrap")
    @classmethod
    def _prefix_is_folder(cls, value: object, check: ValidatorFunctionWrapHandler) -> str:
        # The length limit is the folder's name without its slashes, so a stored prefix (one
        # slash longer than a 1,024-character name) passes it again when read back.
        name: str = check(value.strip("/") if isinstance(value, str) else value)
        return f"{name}/" if name else ""

    @property
    def oss_url(self) -> str:
        """The OSS endpoint URL the OSS client uses."""
        if self.oss_endpoint:
            has_scheme = "://" in self.oss_endpoint
            return self.oss_endpoint if has_scheme else f"{self.protocol}://{self.oss_endpoint}"
        return f"https://oss-{self.region}.aliyuncs.com"

    def output_prefix(self, job_key: str) -> str:
        """The OSS key prefix a job writes its artifacts under."""
        return f"{self.oss_prefix}jobs/{job_key}/"


class PaiCredentials(BaseModel):
    """An access key pair (plus an STS token when temporary). Secrets never print."""

    access_key_id: str = Field(min_length=1)
    access_key_secret: SecretStr
    security_token: SecretStr | None = None

    def secrets(self) -> list[str]:
        """The secret values, so error messages can be scrubbed of them."""
        values = [self.access_key_secret.get_secret_value()]
        if self.security_token:
            values.append(self.security_token.get_secret_value())
        return [v for v in values if v]

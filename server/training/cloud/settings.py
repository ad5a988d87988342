"""PAI-DLC settings and explicitly stored credentials (pydantic models)."""

from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator

DEFAULT_IMAGE = "dsw-registry.cn-hangzhou.cr.aliyuncs.com/pai/pytorch-training:2.3-cpu-py311-ubuntu22.04"


class PaiDlcSettings(BaseModel):
    """Where and how jobs run. Endpoints are ``host[:port]`` for the OpenAPI services.

    Leave ``endpoint``/``workspace_endpoint``/``oss_endpoint`` empty to use the public
    endpoints of ``region``; set them (with ``protocol="http"``) to talk to a local emulator.
    """

    region: str = "cn-hangzhou"
    endpoint: str | None = None
    workspace_endpoint: str | None = None
    protocol: Literal["https", "http"] = "https"
    workspace_id: str = ""
    resource_id: str = ""
    image: str = DEFAULT_IMAGE
    ecs_spec: str = "ecs.g6.xlarge"
    pod_count: int = Field(default=1, ge=1, le=64)
    job_type: str = "PyTorchJob"
    oss_bucket: str = ""
    oss_prefix: str = "mnn-workbench/"
    oss_endpoint: str | None = None
    oss_path_style: bool = False
    timeout_seconds: float = Field(default=30.0, gt=0)

    @field_validator("endpoint", "workspace_endpoint")
    @classmethod
    def _no_scheme(cls, value: str | None) -> str | None:
        # The OpenAPI SDK builds the Host header from this string; a scheme would corrupt it.
        if value and "://" in value:
            raise ValueError("give host[:port] without a scheme; choose http/https with protocol")
        return value or None

    @field_validator("oss_prefix")
    @classmethod
    def _prefix_is_folder(cls, value: str) -> str:
        value = value.strip("/")
        return f"{value}/" if value else ""

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

"""Server-side checks of ACS3-HMAC-SHA256 (OpenAPI) and OSS4-HMAC-SHA256 (OSS) signatures.

Both recompute the canonical request the way the official SDKs build it and compare the
signature in constant time.
"""

import hashlib
import hmac
import threading
import time
from datetime import UTC, datetime
from urllib.parse import parse_qsl, quote, unquote

from .errors import ApiError, Request

MAX_SKEW_SECONDS = 15 * 60


class AcsVerifier:
    """Checks ``Authorization: ACS3-HMAC-SHA256 Credential=..,SignedHeaders=..,Signature=..``."""

    def __init__(self, secrets: dict[str, str]) -> None:
        self.secrets = secrets
        self._nonces: set[str] = set()
        self._lock = threading.Lock()

    def verify(self, req: Request) -> str:
        """Return the access key id of a correctly signed request, else raise ``ApiError``."""
        fields = _parse_acs_authorization(req.headers.get("authorization", ""))
        secret = self.secrets.get(fields["Credential"])
        if secret is None:
            raise ApiError(404, "InvalidAccessKeyId.NotFound", "Specified access key is not found.")
        signed = fields["SignedHeaders"].split(";")
        _check_coverage(req, signed)
        canonical = _acs_canonical_request(req, signed)
        string_to_sign = "ACS3-HMAC-SHA256\n" + hashlib.sha256(canonical.encode()).hexdigest()
        expected = hmac.new(secret.encode(), string_to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, fields["Signature"]):
            raise ApiError(
                400,
                "SignatureDoesNotMatch",
                "Specified signature does not match our calculation.",
                Recommend=f"server string to sign is:{string_to_sign}",
            )
        self._check_time_and_nonce(req)
        return fields["Credential"]

    def _check_time_and_nonce(self, req: Request) -> None:
        stamp = req.headers.get("x-acs-date", "")
        try:
            sent = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
        except ValueError as exc:
            raise ApiError(
                400,
                "InvalidTimeStamp.Format",
                "Specified time stamp or date value is not well formatted.",
            ) from exc
        if abs(time.time() - sent) > MAX_SKEW_SECONDS:
            raise ApiError(400, "InvalidTimeStamp.Expired", "Specified time stamp or date value is expired.")
        nonce = req.headers.get("x-acs-signature-nonce", "")
        with self._lock:
            if not nonce or nonce in self._nonces:
                raise ApiError(400, "SignatureNonceUsed", "Specified signature nonce was used already.")
            self._nonces.add(nonce)


def _check_coverage(req: Request, signed: list[str]) -> None:
    """The body must match its signed hash, and host plus every x-acs-* header be signed."""
    if hashlib.sha256(req.body).hexdigest() != req.headers.get("x-acs-content-sha256"):
        raise ApiError(
            400, "SignatureDoesNotMatch", "The request body hash does not match x-acs-content-sha256."
        )
    must_sign = {"host"} | {name for name in req.headers if name.startswith("x-acs-")}
    if not must_sign <= set(signed):
        raise ApiError(
            400,
            "IncompleteSignature",
            "The request signature does not conform to Aliyun standards: host and every "
            "x-acs-* header must be signed.",
        )


def _parse_acs_authorization(value: str) -> dict[str, str]:
    scheme, _, rest = value.partition(" ")
    if scheme != "ACS3-HMAC-SHA256":
        raise ApiError(
            400,
            "IncompleteSignature",
            "The request signature does not conform to Aliyun standards.",
        )
    fields = dict(part.strip().partition("=")[::2] for part in rest.split(","))
    if not all(fields.get(k) for k in ("Credential", "SignedHeaders", "Signature")):
        raise ApiError(
            400,
            "IncompleteSignature",
            "The request signature does not conform to Aliyun standards.",
        )
    return fields


def _acs_canonical_request(req: Request, signed: list[str]) -> str:
    pairs = sorted(parse_qsl(req.query, keep_blank_values=True))
    query = "&".join(f"{k}={quote(v, safe='~')}" for k, v in pairs)
    headers = "".join(f"{name}:{req.headers.get(name, '').strip()}\n" for name in signed)
    payload = req.headers.get("x-acs-content-sha256", "")
    return f"{req.method}\n{req.path}\n{query}\n{headers}\n{';'.join(signed)}\n{payload}"


class OssVerifier:
    """Checks ``Authorization: OSS4-HMAC-SHA256 Credential=AK/date/region/oss/...``."""

    def __init__(self, secrets: dict[str, str]) -> None:
        self.secrets = secrets

    def verify(self, req: Request) -> str:
        fields = _parse_oss_authorization(req.headers.get("authorization", ""))
        access_key_id, date, region, product, _ = (fields["Credential"].split("/") + [""] * 5)[:5]
        secret = self.secrets.get(access_key_id)
        if secret is None:
            raise ApiError(
                403,
                "InvalidAccessKeyId",
                "The OSS Access Key Id you provided does not exist in our records.",
                OSSAccessKeyId=access_key_id,
                EC="0002-00000902",
            )
        stamp = req.headers.get("x-oss-date", "")
        self._check_time(stamp)
        additional = [h for h in fields.get("AdditionalHeaders", "").split(";") if h]
        canonical = _oss_canonical_request(req, additional)
        scope = f"{date}/{region}/{product}/aliyun_v4_request"
        string_to_sign = "\n".join(
            ["OSS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()]
        )
        key = ("aliyun_v4" + secret).encode()
        for part in (date, region, product, "aliyun_v4_request"):
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        expected = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, fields["Signature"]):
            raise ApiError(
                403,
                "SignatureDoesNotMatch",
                "The request signature we calculated "
                "does not match the signature you provided. Check your key and "
                "signing method.",
                OSSAccessKeyId=access_key_id,
                StringToSign=string_to_sign,
                CanonicalRequest=canonical,
                EC="0002-00000040",
            )
        return access_key_id

    @staticmethod
    def _check_time(stamp: str) -> None:
        try:
            sent = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
        except ValueError as exc:
            raise ApiError(403, "AccessDenied", "Invalid x-oss-date.") from exc
        if abs(time.time() - sent) > MAX_SKEW_SECONDS:
            raise ApiError(
                403,
                "RequestTimeTooSkewed",
                "The difference between the request time and the current time is too large.",
            )


def _parse_oss_authorization(value: str) -> dict[str, str]:
    scheme, _, rest = value.partition(" ")
    fields = dict(part.strip().partition("=")[::2] for part in rest.split(","))
    if scheme != "OSS4-HMAC-SHA256" or not fields.get("Credential") or not fields.get("Signature"):
        raise ApiError(403, "AccessDenied", "Authorization header is invalid.", EC="0002-00000201")
    return fields


def _oss_canonical_request(req: Request, additional: list[str]) -> str:
    uri = quote(unquote(req.path), safe="/")
    pairs = sorted(p.partition("=")[::2] for p in req.query.split("&") if p)
    query = "&".join(f"{k}={v}" if v else k for k, v in pairs)
    names = sorted(
        n
        for n in req.headers
        if n.startswith("x-oss-") or n in ("content-type", "content-md5") or n in additional
    )
    headers = "".join(f"{n}:{req.headers[n]}\n" for n in names)
    payload = req.headers.get("x-oss-content-sha256", "UNSIGNED-PAYLOAD")
    return f"{req.method}\n{uri}\n{query}\n{headers}\n{';'.join(additional)}\n{payload}"

"""The real pretrained algorithms as the built-in source serves them.

A package built by ``make market`` into ``.cache/market/packages/<id>/`` is listed with its
figures; one not built yet is still listed, its summary saying so, and installing it answers
``503 real_package_not_built`` with the command that builds it.
"""

from pathlib import Path

from server.core.error_codes import ErrorCode
from server.core.errors import NotFound, Unavailable
from server.market.builtin.real import CATALOG, VERSION, Listed
from server.market.builtin.real.cache import CACHE
from server.market.package import MANIFEST_NAME, PackageManifest, read_manifest

PACKAGES = CACHE / "packages"
HOW_TO_BUILD = "run `make market` (it downloads the pinned packages once, then builds offline)"


def _listed(id: str) -> Listed | None:
    return next((listed for listed in CATALOG if listed.id == id), None)


def is_real(id: str) -> bool:
    return _listed(id) is not None


def is_built(id: str) -> bool:
    return (PACKAGES / id / MANIFEST_NAME).is_file()


def _placeholder(listed: Listed) -> PackageManifest:
    return PackageManifest(id=listed.id, version=VERSION, name=listed.name, task=listed.task,
                           summary=f"Not built yet: {HOW_TO_BUILD}.")


def entries() -> list[PackageManifest]:
    return [read_manifest(PACKAGES / listed.id) if (PACKAGES / listed.id / MANIFEST_NAME).is_file()
            else _placeholder(listed) for listed in CATALOG]


def folder(id: str, version: str) -> Path:
    """The built package folder of ``id`` at ``version``."""
    found = PACKAGES / id
    if not (found / MANIFEST_NAME).is_file():
        if version == VERSION:
            raise Unavailable(f"the real algorithm {id} is not built yet: {HOW_TO_BUILD}",
                              code=ErrorCode.REAL_PACKAGE_NOT_BUILT)
    elif read_manifest(found).version == version:
        return found
    raise NotFound(f"no built-in algorithm {id} {version}", code=ErrorCode.PACKAGE_NOT_FOUND)

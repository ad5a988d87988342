"""Who may publish a package id to the team registry: the project that owns it.

The first project to publish an id owns it; a new version from any other project is refused
(``403 not_package_owner``) until an administrator hands the id over. Project ids are not named
in the refusal, as a project's id is not shown to people outside it.
"""

from sqlmodel import Session

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Forbidden, NotFound
from server.market.models import MarketPackage
from server.market.schemas import PackageOwner
from server.projects.models import Project
from server.users import audit
from server.users.models import User


class NotPackageOwner(Forbidden):
    code = ErrorCode.NOT_PACKAGE_OWNER


def check_owner(session: Session, package_id: str, project: Project) -> MarketPackage | None:
    """The id's owner row if ``project`` owns it, None if no one does yet; else refused."""
    owner = session.get(MarketPackage, package_id)
    if owner is not None and owner.project_id != project.id:
        raise NotPackageOwner(f"{package_id} belongs to another project; only that project "
                              "publishes new versions, or an administrator hands it over")
    return owner


def claim(session: Session, package_id: str, project: Project) -> None:
    """Make ``project`` the owner of a new id, in the caller's transaction (a second project
    claiming the same id at once fails on the primary key)."""
    if check_owner(session, package_id, project) is None:
        session.add(MarketPackage(package_id=package_id, project_id=project.id))


def _owner_row(session: Session, package_id: str) -> MarketPackage:
    owner = session.get(MarketPackage, package_id)
    if owner is None:
        raise NotFound(f"no package {package_id!r} in the registry", code=ErrorCode.PACKAGE_NOT_FOUND)
    return owner


def transfer(session: Session, admin: User, package_id: str, project_id: str) -> PackageOwner:
    """Hand a registry id to another project (administrators; the route checks the role)."""
    owner = _owner_row(session, package_id)
    if session.get(Project, project_id) is None:
        raise NotFound(f"no project {project_id!r}", code=ErrorCode.NO_PROJECT)
    previous = owner.project_id
    owner.project_id, owner.since = project_id, utcnow()
    session.add(owner)
    audit.record(session, "market.owner", actor=admin.name, package=package_id,
                 project=project_id, previous=previous)
    session.commit()
    session.refresh(owner)
    return PackageOwner(id=owner.package_id, project_id=project_id, since=owner.since)

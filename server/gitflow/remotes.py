"""Remotes, fetch, pull and push (clone: ``clones.py``).

Unlike dulwich's porcelain: credentials are only ever passed per call (a ``user:pass@`` in a URL
is taken out before anything is written to ``.git/config``); every message and URL we return is
redacted; network calls time out; a push the remote rejects (a hook, a protected branch, a
non-fast-forward) is an error carrying the remote's reason and moves no remote-tracking ref.
"""

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial

from dulwich.client import GitClient, HTTPUnauthorized, SendPackResult
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.graph import can_fast_forward
from dulwich.object_store import peel_sha
from dulwich.objects import ZERO_SHA, ObjectID
from dulwich.refs import Ref, check_ref_format
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import BadGateway, Conflict, Forbidden, Invalid, NotFound, Unavailable
from server.gitflow.branches import HEADS, REMOTES, branch_ref
from server.gitflow.commits import identity
from server.gitflow.merge import MergeOutcome, merge_into_head
from server.gitflow.models import FetchResult, PushResult, Remote, TagPushResult
from server.gitflow.tags import tag_ref, take_remote_tags
from server.gitflow.transport import (
    Progress,
    check_url,
    open_client,
    progress_sink,
    redact,
    split_credentials,
)
from server.gitflow.trees import current_branch
from server.gitflow.urlpolicy import UNRESTRICTED, UrlPolicy

Credentials = tuple[str | None, str | None]
# What a push asks the remote's refs to become, given what they are.
RefUpdate = Callable[[dict[Ref, ObjectID]], dict[Ref, ObjectID]]


def remote_url(repo: Repo, name: str) -> str:
    try:
        return repo.get_config().get((b"remote", name.encode()), b"url").decode()
    except KeyError:
        raise NotFound(f"no such remote: {name}", code=ErrorCode.REMOTE_NOT_FOUND) from None


def list_remotes(repo: Repo) -> list[Remote]:
    config = repo.get_config()
    remotes = []
    for section in config.sections():
        if len(section) == 2 and section[0] == b"remote":
            try:
                url = config.get(section, b"url").decode()
            except KeyError:
                url = ""
            remotes.append(Remote(name=section[1].decode(), url=redact(url)))
    return sorted(remotes, key=lambda r: r.name)


def add_remote(repo: Repo, name: str, url: str, policy: UrlPolicy = UNRESTRICTED) -> Remote:
    plain = name.replace("-", "").replace("_", "").replace(".", "").isalnum()
    if not plain or not check_ref_format(Ref(REMOTES + name.encode() + b"/x")):
        raise Invalid(f"invalid remote name: {name!r}", code=ErrorCode.INVALID_REMOTE_NAME)
    url = check_url(url)
    policy.check(url)
    clean, _, _ = split_credentials(url)
    config = repo.get_config()
    section = (b"remote", name.encode())
    if config.has_section(section):
        raise Conflict(f"remote already exists: {name}", code=ErrorCode.REMOTE_EXISTS)
    config.set(section, b"url", clean.encode())
    config.set(section, b"fetch", f"+refs/heads/*:refs/remotes/{name}/*".encode())
    config.write_to_path()
    return Remote(name=name, url=redact(clean))


def remove_remote(repo: Repo, name: str) -> None:
    remote_url(repo, name)
    config = repo.get_config()
    del config[(b"remote", name.encode())]
    config.write_to_path()
    prefix = REMOTES + name.encode() + b"/"
    for ref in list(repo.refs.keys(base=Ref(prefix))):
        repo.refs.remove_if_equals(Ref(prefix + ref), None)


@contextmanager
def network_errors(client: GitClient, *secrets: str | None) -> Iterator[None]:
    """Close ``client`` afterwards; transport failures become errors holding no secret."""
    try:
        yield
    except HTTPUnauthorized:
        raise Forbidden("the remote refused the credentials", code=ErrorCode.AUTH_FAILED) from None
    except NotGitRepository:
        raise NotFound("no Git repository at the remote URL", code=ErrorCode.REMOTE_NOT_FOUND) from None
    except TimeoutError:
        raise Unavailable("the remote did not answer in time", code=ErrorCode.TIMEOUT) from None
    except KeyError as e:  # a local remote's object store lacks an object it refers to
        raise _missing_object(e) from None
    except (GitProtocolError, HangupException, OSError) as e:
        if _timed_out(e):
            raise Unavailable("the remote did not answer in time", code=ErrorCode.TIMEOUT) from None
        text = redact(str(e), *secrets)
        if "corrupt" in text:
            raise BadGateway(f"the remote repository is corrupt: {text}",
                             code=ErrorCode.REMOTE_CORRUPT) from None
        raise Unavailable(f"could not reach the remote: {text}", code=ErrorCode.REMOTE_ERROR) from None
    finally:
        client.close()


def _missing_object(error: KeyError) -> BadGateway:
    sha = error.args[0] if error.args else b""
    missing = sha.decode("ascii", "replace") if isinstance(sha, bytes) else str(sha)
    return BadGateway(
        f"the remote repository is corrupt: object {missing} is missing",
        code=ErrorCode.REMOTE_CORRUPT,
        objects=[missing],
    )


def _timed_out(error: BaseException | None) -> bool:
    """dulwich wraps socket and urllib3 timeouts; look through the chain of causes."""
    while error is not None:
        if isinstance(error, TimeoutError) or "Timeout" in type(error).__name__:
            return True
        error = error.__cause__ or error.__context__
    return False


def fetch(
    repo: Repo,
    remote: str,
    credentials: Credentials = (None, None),
    timeout: float = 30.0,
    progress: Progress | None = None,
    lock: AbstractContextManager = nullcontext(),
    policy: UrlPolicy = UNRESTRICTED,
) -> FetchResult:
    """Download without the write lock (packs land atomically); move refs holding ``lock``."""
    url, user, password = _remote_and_credentials(repo, remote, credentials)
    client, path = open_client(url, user, password, timeout, policy)
    with network_errors(client, password):
        result = client.fetch(path, repo, progress=progress_sink(progress, password))
    with lock:
        return _update_tracking(repo, remote, result.refs)


def _update_tracking(repo: Repo, remote: str, refs: Mapping[Ref, ObjectID | None]) -> FetchResult:
    updated = []
    prefix = REMOTES + remote.encode() + b"/"
    for ref, sha in refs.items():
        if ref.startswith(HEADS) and sha and sha != ZERO_SHA and sha in repo.object_store:
            local = prefix + ref[len(HEADS) :]
            if (repo.refs[Ref(local)] if Ref(local) in repo.refs else None) != sha:
                repo.refs.set_if_equals(Ref(local), None, sha, message=b"fetch: " + ref)
                updated.append(local[len(REMOTES) :].decode())
    return FetchResult(remote=remote, updated=sorted(updated), tags=take_remote_tags(repo, refs))


def _remote_and_credentials(
    repo: Repo, remote: str, credentials: Credentials
) -> tuple[str, str | None, str | None]:
    url, url_user, url_password = split_credentials(remote_url(repo, remote))
    user, password = credentials
    return url, user or url_user, password or url_password


def _branch_name(repo: Repo, branch: str | None, verb: str) -> str:
    """The named branch, else the current one; a detached HEAD must name it."""
    name = branch or current_branch(repo)
    if name is None:
        raise Invalid(f"HEAD is detached: name the branch to {verb}", code=ErrorCode.DETACHED_HEAD)
    return name


def pull(
    repo: Repo,
    remote: str,
    branch: str | None,
    credentials: Credentials = (None, None),
    timeout: float = 30.0,
    progress: Progress | None = None,
    author: str | None = None,
    lock: AbstractContextManager = nullcontext(),
    policy: UrlPolicy = UNRESTRICTED,
    fallback_author: str | None = None,
) -> tuple[str, MergeOutcome]:
    name = _branch_name(repo, branch, "pull")
    branch_ref(name)
    fetch(repo, remote, credentials, timeout, progress, lock, policy)
    tracking = REMOTES + f"{remote}/{name}".encode()
    if Ref(tracking) not in repo.refs:
        raise NotFound(f"the remote has no branch {name}", code=ErrorCode.BRANCH_NOT_FOUND)
    with lock:
        who = partial(identity, repo, author, fallback_author)
        return name, merge_into_head(repo, repo.refs[Ref(tracking)], f"{remote}/{name}", who)


def push(
    repo: Repo,
    remote: str,
    branch: str | None,
    credentials: Credentials = (None, None),
    timeout: float = 30.0,
    progress: Progress | None = None,
    policy: UrlPolicy = UNRESTRICTED,
) -> PushResult:
    name = _branch_name(repo, branch, "push")
    ref = branch_ref(name)
    if Ref(ref) not in repo.refs:
        raise NotFound(f"no such branch: {name}", code=ErrorCode.BRANCH_NOT_FOUND)
    local = repo.refs[Ref(ref)]
    _send_ref(repo, remote, credentials, timeout, progress, policy, ref, _updater(repo, ref, local))
    tracking = REMOTES + f"{remote}/{name}".encode()
    repo.refs.set_if_equals(Ref(tracking), None, local, message=b"update by push")
    _set_upstream_if_missing(repo, name, remote)
    return PushResult(remote=remote, branch=name, commit=local.decode("ascii"))


def push_tag(
    repo: Repo,
    remote: str,
    tag: str,
    credentials: Credentials = (None, None),
    timeout: float = 30.0,
    progress: Progress | None = None,
    policy: UrlPolicy = UNRESTRICTED,
) -> TagPushResult:
    """``git push REMOTE tag NAME``: a tag the remote has pointing elsewhere is never moved."""
    ref = tag_ref(tag)
    if ref not in repo.refs:
        raise NotFound(f"no such tag: {tag}", code=ErrorCode.TAG_NOT_FOUND)
    local = repo.refs[ref]

    def update_refs(remote_refs: dict[Ref, ObjectID]) -> dict[Ref, ObjectID]:
        theirs = remote_refs.get(ref)
        if theirs and theirs != ZERO_SHA and theirs != local:
            raise Conflict(
                f"push rejected: the remote's tag {tag} names another object; tags are never moved",
                code=ErrorCode.PUSH_REJECTED,
            )
        return {ref: local}

    _send_ref(repo, remote, credentials, timeout, progress, policy, ref, update_refs)
    commit = peel_sha(repo.object_store, local)[1]
    return TagPushResult(remote=remote, tag=tag, commit=commit.id.decode("ascii"))


def _send_ref(
    repo: Repo, remote: str, credentials: Credentials, timeout: float, progress: Progress | None,
    policy: UrlPolicy, ref: bytes, update_refs: RefUpdate,
) -> None:
    """Send ``ref`` to ``remote`` with ``update_refs`` deciding the remote's new refs; the
    remote's refusal (its messages, credentials masked) is the push's error."""
    url, user, password = _remote_and_credentials(repo, remote, credentials)
    client, path = open_client(url, user, password, timeout, policy)
    messages: list[str] = []

    def collect(text: str) -> None:
        messages.append(text)
        if progress is not None:
            progress(text)

    with network_errors(client, password):
        # dulwich's own push passes these; its annotations disagree with its implementation.
        result = client.send_pack(
            path,  # type: ignore[arg-type]
            update_refs,
            generate_pack_data=repo.generate_pack_data,  # type: ignore[arg-type]
            progress=progress_sink(collect, password),
        )
    _check_push(result, ref, messages, password)


def _set_upstream_if_missing(repo: Repo, name: str, remote: str) -> None:
    """The first push of a branch publishes it, as ``git push -u`` would."""
    config = repo.get_config()
    section = (b"branch", name.encode())
    try:
        config.get(section, b"remote")
    except KeyError:
        config.set(section, b"remote", remote.encode())
        config.set(section, b"merge", HEADS + name.encode())
        config.write_to_path()


def _updater(repo: Repo, ref: Ref, local: ObjectID) -> Callable[[dict[Ref, ObjectID]], dict[Ref, ObjectID]]:
    def update_refs(remote_refs: dict[Ref, ObjectID]) -> dict[Ref, ObjectID]:
        theirs = remote_refs.get(ref)
        if theirs and theirs != ZERO_SHA and theirs != local:
            known = theirs in repo.object_store
            if not known or not can_fast_forward(repo, theirs, local):
                raise Conflict(
                    "push rejected: the remote has commits you do not have (non-fast-forward); pull first",
                    code=ErrorCode.PUSH_REJECTED,
                )
        return {ref: local}

    return update_refs


def _check_push(result: SendPackResult, ref: bytes, messages: list[str], password: str | None) -> None:
    reason = (result.ref_status or {}).get(ref)
    if reason is None:
        return
    remote_says = " ".join(m for m in messages if m).strip()
    detail = redact(f"push rejected by the remote: {reason}. {remote_says}".strip(), password)
    raise Conflict(detail, code=ErrorCode.PUSH_REJECTED)

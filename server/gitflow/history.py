"""History in ``git log --topo-order``'s order, remembered per start commit.

git's order rather than dulwich's ``ORDER_TOPO``: dulwich follows commit dates and so interleaves
the two lines of a merge, while git shows a commit once all its children are shown and finishes
one line before the next, which is what the history graph draws best and what ``git log`` users
expect. Either way the whole history is walked before the first commit can be placed, so the
order (ids only) is kept for a few start commits and a page just slices it. Commits never
change, so a kept order is never stale, and repositories holding the same commits share it; when
HEAD moves forward, only the new commits are ordered and put in front of the old HEAD's order.
"""

from collections import Counter
from collections.abc import Mapping, Sequence

from dulwich.objects import Commit, ObjectID
from dulwich.repo import ParentsProvider, Repo

from server.core.cache import BoundedCache
from server.gitflow import orderfile, readtree

# Grafts and shallow boundaries change the parents a repository sees, so they are part of the key.
Grafts = tuple[tuple[tuple[ObjectID, tuple[ObjectID, ...]], ...], tuple[ObjectID, ...]]
Order = tuple[ObjectID, ...]

_CACHE_SIZE = 4
# The search for new commits gives up past this many: a merge of older history leads it down
# that history, which the full walk then covers again.
_EXTEND_MAX = 1000

_orders: BoundedCache[tuple[Grafts, ObjectID], Order] = BoundedCache(_CACHE_SIZE)


def topo_order(repo: Repo, start: ObjectID) -> Order:
    """Every commit reachable from ``start``, children first, exactly as ``git log --topo-order``."""
    provider = repo.parents_provider()
    grafts = _grafts_key(provider)
    known = {sha: order for (g, sha), order in _orders.items() if g == grafts}
    if start in known:
        return _keep(grafts, start, known[start])
    kept = orderfile.load(repo.controldir(), repr(grafts).encode())  # from before a restart
    if kept is not None:
        known.setdefault(*kept)
    order = _extended(provider, known, start) if known else None  # nothing kept: no search
    if order is None:
        order = _full_order(repo, provider, start)
    if kept is None or kept[0] != start:
        orderfile.save(repo.controldir(), repr(grafts).encode(), start, order)
    return _keep(grafts, start, order)


def _full_order(repo: Repo, provider: ParentsProvider, start: ObjectID) -> Order:
    """The whole walk: ``git rev-list --topo-order`` (C speed, and git's commit-graph when the
    repository has one); our own walk where git cannot answer (``readtree.rev_list``)."""
    listed = readtree.rev_list(repo, [start])
    return tuple(listed) if listed is not None else tuple(_topo_sort(start, _parents_below(provider, start)))


def topo_order_many(repo: Repo, starts: Sequence[ObjectID]) -> Order:
    """Every commit reachable from any of ``starts`` (in the order git is given them), as
    ``git log --topo-order`` shows them: the starts no other start reaches, newest commit date
    first (ties in the given order), the first on top of git's stack."""
    provider = repo.parents_provider()
    grafts = _grafts_key(provider)
    unique = list(dict.fromkeys(starts))
    key = ObjectID(b"all:" + b",".join(unique))
    kept = _orders.peek((grafts, key))
    if kept is not None:
        return kept
    listed = readtree.rev_list(repo, unique)
    if listed is not None:
        return _keep(grafts, key, tuple(listed))
    parents: dict[ObjectID, list[ObjectID]] = {}
    for start in unique:
        parents.update(_parents_below(provider, start, parents))
    reached = {p for ps in parents.values() for p in ps}
    tips = [sha for sha in unique if sha not in reached]
    tips.sort(key=lambda sha: -_commit_time(repo, sha))  # stable: ties keep the given order
    parents[key] = tips[::-1]
    return _keep(grafts, key, tuple(_topo_sort(key, parents)[1:]))


def _keep(grafts: Grafts, key: ObjectID, order: Order) -> Order:
    _orders.put((grafts, key), order)
    return order


def _commit_time(repo: Repo, sha: ObjectID) -> int:
    commit = repo[sha]
    assert isinstance(commit, Commit)
    return commit.commit_time


def _grafts_key(provider: ParentsProvider) -> Grafts:
    grafts = tuple(sorted((sha, tuple(parents)) for sha, parents in provider.grafts.items()))
    return grafts, tuple(sorted(provider.shallows))


def _extended(provider: ParentsProvider, known: Mapping[ObjectID, Order], start: ObjectID) -> Order | None:
    """The order from ``start`` if the commits not yet ordered lead into history only through one
    kept start (the old HEAD); None when they do not, or are too many to be worth it.

    Then every new commit descends from that old start, so git's walk shows all of them before
    it, and shows the old start's history just as it did from there."""
    parents: dict[ObjectID, list[ObjectID]] = {}
    bases: set[ObjectID] = set()
    todo = [start]
    while todo:
        sha = todo.pop()
        if sha in parents or sha in bases:
            continue
        if sha in known:
            bases.add(sha)
            continue
        if len(parents) == _EXTEND_MAX:
            return None
        parents[sha] = provider.get_parents(sha)
        if not parents[sha]:  # a root: some history does not lead to a kept start
            return None
        todo.extend(parents[sha])
    if len(bases) != 1:
        return None
    (base,) = bases
    parents[base] = []
    return tuple(_topo_sort(start, parents)[:-1]) + known[base]


def _parents_below(provider: ParentsProvider, start: ObjectID,
                   known: Mapping[ObjectID, list[ObjectID]] | None = None) -> dict[ObjectID, list[ObjectID]]:
    """The parents of every commit reachable from ``start`` and not in ``known``."""
    parents: dict[ObjectID, list[ObjectID]] = {}
    known = known or {}
    todo = [start]
    while todo:
        sha = todo.pop()
        if sha not in parents and sha not in known:
            parents[sha] = provider.get_parents(sha)
            todo.extend(parents[sha])
    return parents


def _topo_sort(start: ObjectID, parents: Mapping[ObjectID, Sequence[ObjectID]]) -> list[ObjectID]:
    """git's ``sort_in_topological_order`` for one start: a commit is stacked once its last child
    is shown, and the last parent stacked is shown next (so a merge's side line comes first)."""
    children = Counter(p for ps in parents.values() for p in ps)
    order: list[ObjectID] = []
    todo = [start]
    while todo:
        sha = todo.pop()
        order.append(sha)
        for parent in parents[sha]:
            children[parent] -= 1
            if not children[parent]:
                todo.append(parent)
    return order

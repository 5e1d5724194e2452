"""Pairing a round as a matching search: everyone paired, as few repeats as possible, and among
those pairings the one a rule of preference ranks first (docs/tournaments.md, Swiss).

The players are the vertices ``0..n-1`` of a graph whose edges are the pairs that repeat
nothing (``forbidden[v]`` holds the vertices ``v`` may not meet again). :func:`pair` takes the
players in ``order``; the first one still unpaired takes the first of its ``candidates``
(every other unpaired player, best first) **with which the rest can still be paired with the
fewest repeats possible**. That is what a backtracking search over the candidates in that order
finds first, without its exponential worst case: whether the rest can still be paired is
answered by a maximum matching (Edmonds' blossom algorithm) kept up to date, and fixing one
pair changes that matching by at most two augmenting paths.

So a pairing without repeats is found whenever one exists (a perfect matching of the graph),
and when none does, the pairing has as many pairs without a repeat as the graph's maximum
matching (tests/engine/tournament/test_matching.py checks both against a brute force).

Four players, in order; 2 and 3 have met. Taking the first candidate not met would pair 0
with 1 and leave 2 with 3 again; the search sees that and pairs 0 with 2:

>>> forbidden = [set(), set(), {3}, {2}]
>>> in_order = lambda p, remaining: remaining[1:]
>>> pair_greedily([0, 1, 2, 3], forbidden, in_order) is None
True
>>> pair([0, 1, 2, 3], forbidden, in_order)
[(0, 2), (1, 3)]

When no pairing avoids every repeat, as few as possible repeat (here one):

>>> pair([0, 1, 2, 3], [{1, 2, 3}, {0}, {0}, {0}], in_order)
[(0, 1), (2, 3)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence, Set

__all__ = ["Candidates", "max_matching", "pair", "pair_greedily"]

Candidates = Callable[[int, list[int]], Iterable[int]]
"""``candidates(p, remaining)``: every vertex of ``remaining`` but ``p``, in ``p``'s order of
preference; ``remaining`` is the unpaired vertices in the pairing order, ``p`` first."""


def pair_greedily(
    order: Sequence[int], forbidden: Sequence[Set[int]], candidates: Candidates
) -> list[tuple[int, int]] | None:
    """Each player in ``order`` takes its first candidate it has not met, or ``None`` when one
    finds none left: the plain rule without the search (the benchmark's reference).

    >>> pair_greedily([0, 1, 2, 3], [{1, 2}, {0}, {0}, set()], lambda p, r: r[1:])
    [(0, 3), (1, 2)]
    """
    remaining = list(order)
    pairs: list[tuple[int, int]] = []
    while remaining:
        p = remaining[0]
        met = forbidden[p]
        for c in candidates(p, remaining):
            if c not in met:
                break
        else:
            return None
        pairs.append((p, c))
        remaining.remove(p)
        remaining.remove(c)
    return pairs


def pair(
    order: Sequence[int],
    forbidden: Sequence[Set[int]],
    candidates: Candidates,
    *,
    shortcut: bool = True,
) -> list[tuple[int, int]]:
    """Every vertex of ``order`` paired (there must be an even number of them), with as many
    pairs off ``forbidden`` as a maximum matching has, preferring at each step the first
    player's first candidate that keeps that possible. Pairs come in the order they were
    made: the first player's pair first.

    ``shortcut``: try :func:`pair_greedily` first. When it pairs everyone, every step's first
    candidate not met left the rest pairable, so it is the search's own answer, found without
    the matching; ``False`` always searches (the benchmark compares the two)."""
    n = len(order)
    if n % 2:
        raise ValueError(f"an odd number of players cannot all be paired: {n}")
    if shortcut:
        greedy = pair_greedily(order, forbidden, candidates)
        if greedy is not None:
            return greedy
    alive = [False] * (max(order, default=-1) + 1)
    for v in order:
        alive[v] = True
    mate = max_matching(order, forbidden, alive)
    size = sum(1 for v in order if mate[v] != -1) // 2
    remaining = list(order)
    pairs: list[tuple[int, int]] = []
    while remaining:
        p = remaining[0]
        for c in candidates(p, remaining):
            fixed = _fix(p, c, mate, size, len(remaining), forbidden, alive)
            if fixed is not None:
                size = fixed
                break
        else:  # pragma: no cover - some pair always keeps the best count
            raise AssertionError(f"no candidate of {p} keeps the round pairable")
        pairs.append((p, c))
        remaining.remove(p)
        remaining.remove(c)
    return pairs


def _fix(
    p: int,
    c: int,
    mate: list[int],
    size: int,
    left: int,
    forbidden: Sequence[Set[int]],
    alive: list[bool],
) -> int | None:
    """Pair ``p`` with ``c`` if the rest can still be paired with ``size`` (the maximum
    matching of the ``left`` unpaired vertices) pairs off ``forbidden``, counting this one:
    update ``mate`` to a maximum matching of the rest and return its size; else ``None`` and
    leave everything as it was."""
    allowed = c not in forbidden[p]
    need = size - 1 if allowed else size
    if need > (left - 2) // 2:
        return None
    if mate[p] == c:
        mate[p] = mate[c] = -1
        alive[p] = alive[c] = False
        return need
    trial = mate[:]
    alive[p] = alive[c] = False
    freed = []
    have = size
    for x in (p, c):
        y = trial[x]
        if y != -1:
            trial[x] = trial[y] = -1
            freed.append(y)
            have -= 1
    # An augmenting path of the rest must end at a vertex just freed (the others were exposed
    # under a maximum matching already); the cheapest is the edge between the two.
    if have < need and len(freed) == 2 and freed[1] not in forbidden[freed[0]]:
        trial[freed[0]], trial[freed[1]] = freed[1], freed[0]
        have += 1
    for f in freed:
        if have >= need:
            break
        if trial[f] == -1 and _augment(f, trial, forbidden, alive):
            have += 1
    if have < need:
        # Pairing the two freed vertices with each other, or a path from one of them that
        # ended at the other, may leave a larger matching of the rest unfound: one pass of
        # searches from every vertex still exposed finds a maximum one (a vertex with no
        # augmenting path never gains one), as :func:`max_matching` does.
        for v in range(len(trial)):
            if have >= need:
                break
            if alive[v] and trial[v] == -1 and _augment(v, trial, forbidden, alive):
                have += 1
    if have < need:
        alive[p] = alive[c] = True
        return None
    mate[:] = trial
    return have


def max_matching(
    vertices: Sequence[int], forbidden: Sequence[Set[int]], alive: Sequence[bool]
) -> list[int]:
    """A maximum matching of the graph on ``vertices`` (those ``alive``) whose edges are the
    pairs off ``forbidden``: ``mate[v]`` is ``v``'s partner or -1. Greedy first, then an
    augmenting path from each vertex left exposed (Edmonds).

    >>> max_matching([0, 1, 2, 3], [{1}, {0, 2}, {1}, set()], [True] * 4)
    [2, 3, 0, 1]
    """
    mate = [-1] * len(alive)
    for v in vertices:
        if mate[v] != -1:
            continue
        met = forbidden[v]
        for u in vertices:
            if u != v and mate[u] == -1 and u not in met:
                mate[v], mate[u] = u, v
                break
    for v in vertices:
        if mate[v] == -1:
            _augment(v, mate, forbidden, alive)
    return mate


def _augment(
    root: int, mate: list[int], forbidden: Sequence[Set[int]], alive: Sequence[bool]
) -> bool:
    """Look for an augmenting path from the exposed vertex ``root`` and, if there is one,
    flip it in ``mate``: Edmonds' search, shrinking each odd cycle (blossom) to its base."""
    n = len(mate)
    parent = [-1] * n
    base = list(range(n))
    outer = [False] * n
    outer[root] = True
    queue = [root]
    vertices = [v for v in range(n) if alive[v]]
    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        met = forbidden[v]
        for to in vertices:
            if to == v or to in met or base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                top = _common_base(v, to, mate, parent, base)
                blossom = [False] * n
                _mark(v, top, to, mate, parent, base, blossom)
                _mark(to, top, v, mate, parent, base, blossom)
                for i in vertices:
                    if blossom[base[i]]:
                        base[i] = top
                        if not outer[i]:
                            outer[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    while to != -1:
                        via = parent[to]
                        after = mate[via]
                        mate[to], mate[via] = via, to
                        to = after
                    return True
                outer[mate[to]] = True
                queue.append(mate[to])
    return False


def _common_base(a: int, b: int, mate: list[int], parent: list[int], base: list[int]) -> int:
    """The base of the blossom closed by the edge ``a``-``b``: their nearest common ancestor
    in the search tree, counted on blossom bases."""
    seen = set()
    while True:
        a = base[a]
        seen.add(a)
        if mate[a] == -1:
            break
        a = parent[mate[a]]
    while True:
        b = base[b]
        if b in seen:
            return b
        b = parent[mate[b]]


def _mark(
    v: int,
    top: int,
    child: int,
    mate: list[int],
    parent: list[int],
    base: list[int],
    blossom: list[bool],
) -> None:
    """Mark the blossom's vertices on the path from ``v`` down to its base ``top``, and point
    their parents around the cycle."""
    while base[v] != top:
        blossom[base[v]] = blossom[base[mate[v]]] = True
        parent[v] = child
        child = mate[v]
        v = parent[mate[v]]

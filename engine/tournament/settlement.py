"""A chouette night's settlement: who pays whom at the end of the evening, in the fewest
payments (docs/tournaments.md, A chouette night).

The night's ledger is the sum of its chouettes' ledgers (:func:`night_balances`): each player's
points won (+) or lost (−), summing to zero. Settling it takes at least ``n - g`` payments for
``n`` players with a balance and ``g`` the most groups they can be split into that each sum to
zero: the payments join the players into groups that settle among themselves, each group of
``k`` needs at least ``k - 1`` payments, and ``k - 1`` suffice (each payment settles one player
and the last settles two). Finding ``g`` is NP-hard in general (it contains subset sum), so:

1. players at zero pay nothing; two players owing each other exactly are one group (some best
   split has them so: moving the pair out of the groups that hold them loses none);
2. up to :data:`EXACT_LIMIT` players left, ``g`` is found exactly by dynamic programming over
   the subsets (``best[S]``, the most zero-sum groups inside ``S``, is the best of
   ``best[S - {i}]`` over ``i`` in ``S``, plus one when ``S`` sums to zero), ``2^n · n`` steps;
3. above the limit the plan is **greedy** (the biggest debtor pays the biggest creditor, until
   all are square): at most ``n - 1`` payments, not always the fewest, and labelled so
   (``exact=False``).

Within each group, the biggest debtor pays the biggest creditor as much as settles one of them.

>>> plan = settle({"ann": 5, "bob": -3, "cat": -2, "dan": 4, "eve": -4})
>>> [str(p) for p in plan.payments], plan.exact
(['bob pays ann 3', 'cat pays ann 2', 'eve pays dan 4'], True)
>>> settle({"ann": 1, "bob": 1})
Traceback (most recent call last):
...
engine.errors.LedgerError: the balances must sum to zero: they sum to 2
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.errors import LedgerError

__all__ = ["EXACT_LIMIT", "Payment", "SettlementPlan", "fewest_groups", "night_balances", "settle"]

EXACT_LIMIT = 18
"""The most players with a balance (after step 1) settled exactly: ``2^18`` subsets, about 0.4 s
in CPython (each player more doubles it); a night with more is settled greedily
(``exact=False``)."""


@dataclass(frozen=True, slots=True)
class Payment:
    """``payer`` pays ``payee`` ``amount`` points."""

    payer: str
    payee: str
    amount: int

    def __str__(self) -> str:
        return f"{self.payer} pays {self.payee} {self.amount}"


@dataclass(frozen=True, slots=True)
class SettlementPlan:
    """The payments that settle a night, by payer then payee."""

    payments: tuple[Payment, ...]
    exact: bool
    """The fewest payments possible; ``False``: a greedy plan (more than :data:`EXACT_LIMIT`
    players had to be split), which may take more."""


def night_balances(ledgers: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """The night's ledger: each player's balance over every chouette's ledger, players in the
    order they first appear.

    >>> night_balances([{"ann": 2, "bob": -2}, {"bob": 3, "cat": -3}])
    {'ann': 2, 'bob': 1, 'cat': -3}
    """
    night: dict[str, int] = {}
    for ledger in ledgers:
        for player, points in _checked(ledger).items():
            night[player] = night.get(player, 0) + points
    return night


def _checked(balances: Mapping[str, int]) -> dict[str, int]:
    out = {}
    for player, points in balances.items():
        if not isinstance(player, str) or not player:
            raise LedgerError(f"a player is a non-empty string: {player!r}")
        if not isinstance(points, int) or isinstance(points, bool):
            raise LedgerError(f"{player!r}'s balance is not an integer: {points!r}")
        out[player] = points
    total = sum(out.values())
    if total:
        raise LedgerError(f"the balances must sum to zero: they sum to {total}")
    return out


def fewest_groups(values: list[int]) -> list[list[int]]:
    """The indices of ``values`` (none zero, summing to zero, at most :data:`EXACT_LIMIT`)
    split into the most groups that each sum to zero, by dynamic programming over the subsets.

    >>> fewest_groups([3, -1, -2, 5, -5])
    [[0, 1, 2], [3, 4]]
    """
    k = len(values)
    if not k:
        return []
    if k > EXACT_LIMIT:
        raise LedgerError(f"more than {EXACT_LIMIT} balances are not split exactly: {k}")
    full = (1 << k) - 1
    total = [0] * (full + 1)
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + values[low.bit_length() - 1]
        most = 0
        rest = mask
        while rest:
            bit = rest & -rest
            if best[mask ^ bit] > most:
                most = best[mask ^ bit]
            rest ^= bit
        best[mask] = most + (total[mask] == 0)
    # Walk back down the chain of zero-sum subsets: each step drops one player while keeping
    # the count, and each zero-sum subset met closes a group.
    groups = []
    mask, closed = full, full
    while mask:
        if total[mask] == 0 and mask != closed:
            groups.append(closed & ~mask)
            closed = mask
        want = best[mask] - (total[mask] == 0)
        bit = 1
        while not (mask & bit and best[mask ^ bit] == want):
            bit <<= 1
        mask ^= bit
    groups.append(closed)
    return sorted([i for i in range(k) if g >> i & 1] for g in groups)


def settle(balances: Mapping[str, int]) -> SettlementPlan:
    """The payments that settle ``balances`` (every player's night, summing to zero): the
    fewest possible up to :data:`EXACT_LIMIT` players left after the obvious pairs, a greedy
    plan above (the module's docstring).

    :raises LedgerError: balances that are not integers or do not sum to zero."""
    checked = _checked(balances)
    owed = sorted((p, v) for p, v in checked.items() if v)
    groups: list[list[tuple[str, int]]] = []
    debtors: dict[int, list[tuple[str, int]]] = {}
    for player, v in owed:
        if v < 0:
            debtors.setdefault(-v, []).append((player, v))
    rest = []
    for player, v in owed:
        if v > 0 and debtors.get(v):
            groups.append([(player, v), debtors[v].pop(0)])
        elif v > 0:
            rest.append((player, v))
    rest += [d for ds in debtors.values() for d in ds]
    rest.sort()
    exact = len(rest) <= EXACT_LIMIT
    if exact:
        groups += [[rest[i] for i in g] for g in fewest_groups([v for _, v in rest])]
    elif rest:
        groups.append(rest)
    payments = [p for g in groups for p in _settle_group(g)]
    payments.sort(key=lambda p: (p.payer, p.payee))
    return SettlementPlan(tuple(payments), exact)


def _settle_group(group: list[tuple[str, int]]) -> list[Payment]:
    """A zero-sum group settled: the biggest debtor pays the biggest creditor (ties by id) as
    much as squares one of them, until all are square (at most ``len(group) - 1`` payments)."""
    balance = dict(group)
    payments: list[Payment] = []
    while True:
        owing = [p for p in balance if balance[p] < 0]
        owed = [p for p in balance if balance[p] > 0]
        if not owing:
            return payments
        payer = min(owing, key=lambda p: (balance[p], p))
        payee = min(owed, key=lambda p: (-balance[p], p))
        amount = min(-balance[payer], balance[payee])
        payments.append(Payment(payer, payee, amount))
        balance[payer] += amount
        balance[payee] -= amount

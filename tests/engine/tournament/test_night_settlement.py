"""A chouette night's settlement (engine/tournament/settlement.py): the fewest payments,
against two brute forces, up to 8 players."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import LedgerError
from engine.tournament import EXACT_LIMIT, night_balances, settle


def _settles(balances: Mapping[str, int], payments) -> bool:
    left = dict(balances)
    for p in payments:
        assert p.amount > 0 and p.payer != p.payee
        left[p.payer] += p.amount
        left[p.payee] -= p.amount
    return not any(left.values())


def _fewest_by_backtracking(values: list[int]) -> int:
    """The classic search: settle the first non-zero balance against each later one of the
    other sign in turn (each payment squares at least one player)."""
    values = [v for v in values if v]

    def search(i: int, vs: list[int]) -> int:
        while i < len(vs) and vs[i] == 0:
            i += 1
        if i == len(vs):
            return 0
        best = len(vs)
        for j in range(i + 1, len(vs)):
            if vs[j] * vs[i] < 0:
                vs[j] += vs[i]
                best = min(best, 1 + search(i + 1, vs))
                vs[j] -= vs[i]
        return best

    return search(0, values)


def _fewest_by_partitions(values: list[int]) -> int:
    """n minus the most blocks of a set partition whose blocks all sum to zero, over every
    set partition."""
    values = [v for v in values if v]

    def partitions(items: list[int]):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for p in partitions(rest):
            for i in range(len(p)):
                yield [*p[:i], [first, *p[i]], *p[i + 1 :]]
            yield [[first], *p]

    most = (
        max(len(p) for p in partitions(values) if all(sum(block) == 0 for block in p))
        if values
        else 0
    )
    return len(values) - most


@st.composite
def nights(draw, most: int = 8) -> dict[str, int]:
    n = draw(st.integers(0, most))
    if n == 0:
        return {}
    points = draw(st.lists(st.integers(-12, 12), min_size=n - 1, max_size=n - 1))
    points.append(-sum(points))
    return {f"p{i}": v for i, v in enumerate(points)}


@settings(max_examples=400, deadline=None)
@given(nights())
def test_the_plan_settles_the_night_in_the_fewest_payments(balances: dict[str, int]) -> None:
    plan = settle(balances)
    assert plan.exact
    assert _settles(balances, plan.payments)
    fewest = _fewest_by_backtracking(list(balances.values()))
    assert fewest == _fewest_by_partitions(list(balances.values()))
    assert len(plan.payments) == fewest
    assert plan == settle(dict(reversed(balances.items())))  # the order given changes nothing


@settings(max_examples=30, deadline=None)
@given(nights(most=40))
def test_above_the_limit_the_plan_is_greedy_labelled_and_still_settles(
    balances: dict[str, int],
) -> None:
    plan = settle(balances)
    assert _settles(balances, plan.payments)
    owing = sum(1 for v in balances.values() if v)
    assert len(plan.payments) <= max(owing - 1, 0)


def test_a_big_night_is_labelled_greedy() -> None:
    # odd winnings, even losses: no two players owe each other exactly
    half = EXACT_LIMIT // 2 + 1
    balances = {f"p{i}": 2 * i + 1 for i in range(half)}
    balances.update({f"q{i}": -(2 * i + 2) for i in range(half)})
    balances["r"] = -sum(balances.values())
    plan = settle(balances)
    assert not plan.exact and _settles(balances, plan.payments)


def test_exact_opposites_pay_each_other() -> None:
    plan = settle({"ann": 3, "bob": -3, "cat": 2, "dan": -2, "eve": 0})
    assert [str(p) for p in plan.payments] == ["bob pays ann 3", "dan pays cat 2"]


def test_a_night_sums_its_chouettes() -> None:
    night = night_balances([{"ann": 4, "bob": -4}, {"ann": -1, "cat": 1}, {}])
    assert night == {"ann": 3, "bob": -4, "cat": 1}
    assert [str(p) for p in settle(night).payments] == ["bob pays ann 3", "bob pays cat 1"]


@pytest.mark.parametrize(
    ("balances", "message"),
    [
        ({"ann": 1, "bob": 0}, "sum to zero"),
        ({"ann": 1.0, "bob": -1}, "not an integer"),
        ({"ann": True, "bob": -1}, "not an integer"),
        ({"": 0}, "non-empty string"),
        ({3: 0}, "non-empty string"),
    ],
)
def test_bad_balances_are_refused(balances: dict, message: str) -> None:
    with pytest.raises(LedgerError, match=message):
        settle(balances)

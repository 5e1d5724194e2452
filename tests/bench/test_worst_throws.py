"""bench/throws.py measures what it claims: the most branching throws (more than 500 legal
plays, and the 1-1 of AACAkCRJqqoAAA), each message made as ``serve`` makes it, beside the
plays as a list; no timing is asserted, only what is measured and the message's bytes."""

from __future__ import annotations

from bench.throws import WORST, branching_throws, worst_throws
from engine.moves import legal_plays


def test_the_corpus_is_the_throws_of_more_than_500_plays_and_the_worst_one() -> None:
    throws = branching_throws(60)
    assert throws[0][0].position_id() == WORST and throws[0][1] == (1, 1)
    assert len(legal_plays(*throws[0])) == 2220
    assert all(len(legal_plays(pos, dice)) > 500 for pos, dice in throws[1:])


def test_the_worst_throws_message_is_under_16_kb_and_the_list_far_larger() -> None:
    out = worst_throws(20, repeat=1)
    assert out["throws"] >= 1
    assert out["worst_tree_bytes"] < out["worst_m_bytes"] <= 16 * 1024
    # The list of the same 2,220 plays was 218 KB.
    assert out["list_worst_bytes"] > 200_000
    assert out["worst_plays_ms"] > 0 and out["worst_plays_cpu_ms"] > 0 and out["list_worst_ms"] > 0


def test_the_loop_is_watched_while_the_worst_tree_is_made_on_it_and_in_a_thread() -> None:
    from bench.throws import loop_stall
    from engine import moves
    from engine.position import Position

    out = loop_stall(Position.from_id(WORST), (1, 1), repeat=1)
    assert set(out) == {"inline", "threaded"}
    # The heartbeat waited while 2,220 plays were listed on the loop itself: some time, not
    # none (no bound on it is asserted; the machines differ).
    assert out["inline"] > 0 and out["threaded"] >= 0
    assert moves._cached.cache_info().currsize == 0  # left cold, as each try starts

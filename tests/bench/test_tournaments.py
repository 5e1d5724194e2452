"""bench/tournaments.py's server part at a few tables: a small Swiss tournament's first round
is created beside human-pace tables, and the figures it reports are what it claims (no timing
asserted: benchmarks are not timed tests)."""

from __future__ import annotations

from bench.tournaments import TARGET_P99_MS, round_load


async def test_a_rounds_tables_are_created_beside_human_pace_tables(owner_url: str) -> None:
    out = await round_load(owner_url, tables=4, field=8, seconds=2.0, processes=1, settle=0.5)
    # Eight entrants: four boards, each a match table created and its two players seated.
    assert out["round_tables"] == 4 and out["field"] == 8
    first, last, seated = out["first_table_s"], out["last_table_s"], out["last_seated_s"]
    assert first is not None and last is not None and seated is not None
    assert 0 < first <= last <= seated
    # The background tables played in both kinds of phase, without errors.
    assert out["without_round"]["commands"] > 0 and out["with_round"]["commands"] > 0
    assert out["without_round"]["errors"] == out["with_round"]["errors"] == 0
    assert len(out["without_round"]["phase_p99_ms"]) == 2
    assert out["p99_ratio"] > 0 and out["target_p99_ms"] == TARGET_P99_MS == 50.0
    assert out["met"] is (out["with_round"]["p99_ms"] <= 50.0)

"""A finished match is finished (docs/rules.md §10; issue 27) through the decider: a match
forfeited while its next game is started but not yet thrown ends that game unplayed, its seed
revealed; nothing is thrown, played, doubled, started or timed in a finished match; and a log
that an older server poisoned (an opening throw written by the timer after the match was
forfeited) still loads, replays in words and audits, the bad event named at its version.

The player's report: a 3-point match with clocks, game 1 dropped (1-0), game 2 started and not
thrown, the leader leaves; the server wrote ``player_left`` and ``match_ended``, and 3 s later
the timer's ``opening_throw``.
"""

from __future__ import annotations

import pytest

from engine.errors import GameOverError
from engine.frozen import replace
from events.domain import clocks
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, fold, fold_stored
from events.domain.table import MatchOverError, NotAllowedError
from events.records.audit import audit_records
from events.records.record_text import record_lines, state_text
from events.store.streams import table_stream
from tests.poisoned import DICE, Match, poisoned_steps
from tests.records import recorded


def _dropped(**options: object) -> Match:
    """The player's match up to game 2 started, not yet thrown, bob leading 1-0."""
    m = Match(**options)
    ended = m.game_one_dropped()
    assert [type(ev) for ev in ended] == [e.CubeDropped, e.GameEnded, e.GameStarted]
    assert m.state.match is not None and m.state.match.score == (0, 1)
    assert m.state.in_game and m.state.game_no == 2 and not m.state.dice_counter
    return m


def _report(m: Match) -> dict[str, object]:
    return audit_records(table_stream("t"), recorded("t", m.steps)).as_dict()


def test_leaving_a_match_before_its_next_game_is_thrown_ends_that_game_unplayed() -> None:
    m = _dropped()
    # The table's own clock runs for game 2's opening throw: it would run out in 3 s.
    assert clocks.next_deadline(m.state) == m.now + 3000

    left = m.do("bob", c.Leave())  # the leader leaves

    assert [type(ev) for ev in left] == [e.PlayerLeft, e.GameEnded, e.MatchEnded]
    ended, over = left[1], left[2]
    assert isinstance(ended, e.GameEnded) and isinstance(over, e.MatchEnded)
    assert (ended.game, ended.how, ended.winner, ended.settlements) == (2, "unplayed", "", [])
    assert ended.seed == DICE.reveal(2)  # revealed, as every game_ended reveals its seed
    assert (over.winner, over.score) == ("ann", [0, 1])
    s = m.state
    assert s.match_winner == "ann" and not s.in_game and not s.window_open
    # Nothing can run out at a finished table: no clock runs, the timer has nothing to wake for.
    assert s.clock_running == () and clocks.next_deadline(s) is None
    record = "\n".join(record_lines(m.events))
    game_two = record[record.index("Game 2:") :]
    assert "ends unplayed (before its first throw)" in game_two, record
    assert f"dice seed {DICE.reveal(2)}" in game_two and "skipped" not in record
    report = _report(m)
    assert report["status"] == "ok", report
    assert report["games"] == {  # type: ignore[comparison-overlap]
        "started": 2,
        "dice_verified": [1, 2],  # the unplayed game's seed matches its commitment
        "pending": [],
        "uncommitted": [],
    }


def test_a_match_forfeited_in_its_next_games_seed_window_ends_that_game_unplayed() -> None:
    m = Match(seed_window=5)
    for player in ("ann", "bob"):
        m.do(player, c.WaiveSeed())  # game 1's window closes once both have answered
    m.game_one_dropped()
    assert m.state.game_no == 2 and m.state.in_game
    assert m.state.window_open and m.state.seed_waiting == ("ann", "bob")
    m.do("ann", c.AddSeed(seed="ann's own"))

    left = m.do("bob", c.Leave())

    assert [type(ev) for ev in left] == [e.PlayerLeft, e.GameEnded, e.MatchEnded]
    assert isinstance(left[1], e.GameEnded) and left[1].how == "unplayed"
    s = m.state
    assert s.match_winner == "ann" and not s.in_game
    assert not s.window_open and s.seed_waiting == () and s.seed_deadline == 0
    assert clocks.next_deadline(s) is None
    with pytest.raises(MatchOverError):  # the window's time running out changes nothing
        decide(s, "clock", c.Expire(), DICE, m.now + 60_000)
    assert _report(m)["status"] == "ok", _report(m)


@pytest.mark.parametrize(
    "command",
    [
        c.Roll(),
        c.Move(notation="8/5 6/5"),
        c.Double(),
        c.Take(),
        c.Drop(),
        c.Beaver(),
        c.Resign(level=1),
        c.Accept(),
        c.Decline(),
        c.StartGame(),
        c.AddSeed(seed="late"),
        c.WaiveSeed(),
        c.Expire(),
    ],
    ids=lambda cmd: e.tag(cmd),  # type: ignore[arg-type]
)
def test_nothing_is_thrown_played_or_timed_in_a_finished_match(command: c.Command) -> None:
    m = _dropped()
    m.do("bob", c.Leave())
    # The one still seated (and the timer's expiry) is told the match is over; whoever is
    # not seated, that first (the role is checked before the state, as at any table).
    actors = ("ann", "clock") if isinstance(command, c.Expire) else ("ann",)
    for actor in actors:
        with pytest.raises(MatchOverError, match=r"^the match is over$"):
            decide(m.state, actor, command, DICE, m.now + 3_600_000)
    if not isinstance(command, c.Expire):
        for actor in ("bob", "clock"):
            with pytest.raises(NotAllowedError, match="not seated"):
                decide(m.state, actor, command, DICE, m.now + 3_600_000)


def test_a_finished_match_may_still_be_left_and_is_not_joined() -> None:
    m = _dropped()
    m.do("bob", c.Leave())
    with pytest.raises(MatchOverError):
        decide(m.state, "cat", c.Join(), DICE, m.now)
    assert m.do("ann", c.Leave()) == [e.PlayerLeft(player="ann", at=m.now)]
    assert _report(m)["status"] == "ok", _report(m)


# -- a log poisoned before the fix --------------------------------------------------------


def poisoned() -> tuple[list[list[e.Event]], int]:
    """The steps the server wrote before the fix (:func:`tests.poisoned.poisoned_steps`), and
    the version of the opening throw it wrote into the finished match (the last event)."""
    steps = poisoned_steps()
    return steps, sum(len(s) for s in steps)


def events_of(steps: list[list[e.Event]]) -> list[e.Event]:
    return [ev for step in steps for ev in step]


def test_a_poisoned_log_loads_with_the_bad_event_skipped() -> None:
    steps, bad = poisoned()
    events = events_of(steps)
    with pytest.raises(GameOverError, match="the match is over"):
        fold(events)  # the strict fold refuses it, as the audit does

    s = fold_stored(events)

    assert s.version == bad == len(events) and s.skipped == (bad,) and s.last_skipped
    assert s.last_at == events[-1].at  # the time still moves on past it
    # The state is the one before the bad event, a version on: the match is over, ann won.
    before = fold(events[:-1])
    assert replace(s, version=before.version, last_at=before.last_at, skipped=()) == before
    assert s.match_winner == "ann" and s.seats == ("ann", None) and s.dice_counter == 0
    assert s.clock_running == () and clocks.next_deadline(s) is None
    # Every command but leaving is refused on it, and plainly.
    with pytest.raises(MatchOverError, match="the match is over"):
        decide(s, "ann", c.Roll(), DICE, s.last_at + 1000)
    with pytest.raises(MatchOverError):
        decide(s, "clock", c.Expire(), DICE, s.last_at + 60_000)
    assert decide(s, "ann", c.Leave(), DICE) == [e.PlayerLeft(player="ann")]


def test_a_poisoned_log_audits_as_a_rules_failure_at_the_bad_event() -> None:
    steps, bad = poisoned()
    report = audit_records(table_stream("t"), recorded("t", steps)).as_dict()
    assert report["status"] == "failed"
    assert report["failures"] == [
        {
            "check": "rules",
            "version": bad,
            "event": "opening_throw",
            "reason": "opening_throw is not allowed: the match is over",
        }
    ]


def test_a_match_forfeited_before_the_fix_still_audits_without_its_unplayed_game() -> None:
    """What the server recorded before issue 27 (``player_left`` then ``match_ended``, game 2
    left open) was what the rules gave then: it is accepted, game 2's dice pending."""
    steps, _bad = poisoned()
    report = audit_records(table_stream("t"), recorded("t", steps[:-1])).as_dict()
    assert report["failures"] == [] and report["status"] == "pending", report
    assert report["games"]["pending"] == [2]  # type: ignore[index]


def test_a_poisoned_log_replays_in_words_naming_the_skipped_event() -> None:
    steps, bad = poisoned()
    events = events_of(steps)
    lines = list(record_lines(events, boards=True))
    text = "\n".join(lines)
    assert lines[-4:] == [
        "ann wins the match 0-1",
        "",
        "1 stored event did not apply and changed nothing:",
        f"  version {bad}: opening_throw skipped (the match is over)",
    ], lines
    game_two = text[text.index("Game 2:") : text.index("ann wins the match")]
    assert "opening" not in game_two, game_two  # the skipped throw makes no entry
    assert "(never played: the match ended before its first throw" in game_two
    at_bad = state_text(events, bad)
    assert at_bad.startswith(f"version {bad} of {bad}: opening throw:"), at_bad
    assert "(skipped: the rules do not allow it here, so it changed nothing)" in at_bad

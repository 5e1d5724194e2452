"""The table aggregate: event types, upcasting, decide and evolve, the fold."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.errors import EngineError, IllegalPlayError, NotYourTurnError
from engine.game import Phase
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve, fold, may_start_game
from events.domain.table import CommandError, NotAllowedError, TableState
from tests.dice import ScriptedDice, SeededDice


class Table:
    """A table driven through decide/evolve, every event round-tripped through its bytes."""

    def __init__(self, kind: str, seed: int = 0, **options: Any) -> None:
        self.dice = SeededDice(seed)
        self.state = TableState(table_id="t")
        self.log: list[e.Event] = []
        self.do("ann", c.CreateTable(kind=kind, options=e.TableOptions(**options)))  # type: ignore[arg-type]

    def do(self, actor: str, command: c.Command) -> list[e.Event]:
        events = decide(self.state, actor, command, self.dice)
        if any(isinstance(ev, e.GameStarted) for ev in events):
            # The service draws the next game's seed only for such commands (docs/dice.md).
            assert may_start_game(command), command
        for ev in events:
            stored = e.decode(e.tag(ev), ev.schema_version, e.encode(ev))
            assert stored == ev
            self.state = evolve(self.state, stored)
            self.log.append(stored)
        return events


def play_duel(t: Table, rng: random.Random, steps: int = 5000, cube: float = 0.05) -> None:
    for _ in range(steps):
        s = t.state
        if s.match_winner:
            return
        if not s.in_game:
            t.do(s.seats[0] or "", c.StartGame())  # a money table waits for its next game
            continue
        g = s.game
        assert g is not None
        if g.phase is Phase.OPENING:
            t.do(s.seats[0] or "", c.Roll())
            continue
        who = s.seats[g.to_act] if g.to_act is not None else None
        assert who is not None
        if g.phase is Phase.ROLL:
            if g.can_double(g.turn) and rng.random() < cube:
                t.do(who, c.Double())
            else:
                t.do(who, c.Roll())
        elif g.phase is Phase.MOVE:
            play = rng.choice(g.legal_plays())
            t.do(who, c.Move(moves=[list(m) for m in play.moves]))  # type: ignore[misc]
        elif g.phase is Phase.DOUBLED:
            t.do(who, c.Take() if rng.random() < 0.7 else c.Drop())


def test_every_event_type_has_a_stable_explicit_tag() -> None:
    tags = list(e.EVENT_TYPES)
    assert len(tags) == len(set(tags))
    assert all(t == t.lower() and " " not in t for t in tags)
    assert e.EVENT_TYPES["dice_rolled"] is e.DiceRolled
    assert e.EVENT_TYPES["checkers_moved"] is e.CheckersMoved


def test_stored_events_carry_every_field_and_their_tag() -> None:
    data = e.encode(e.CubeTaken(player="ann", at=1_764_000_000_000))
    assert msgspec.json.decode(data) == {
        "type": "cube_taken",
        "at": 1_764_000_000_000,
        "player": "ann",
        "cube": "",
        "cubes": [],
    }


def test_stored_events_tolerate_unknown_fields() -> None:
    ev = e.decode("cube_taken", 1, b'{"type":"cube_taken","player":"ann","cube":"","extra":1}')
    assert ev == e.CubeTaken(player="ann")


def test_commands_reject_unknown_fields() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field `sides`"):
        c.COMMAND_DECODER.decode(b'{"type":"roll","sides":6}')


def test_an_old_payload_is_upcast_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pretend dice_rolled moved to version 2 after version 1 stored the dice as "die1"/"die2".
    def v1_to_v2(raw: dict[str, Any]) -> dict[str, Any]:
        raw = dict(raw)
        raw["dice"] = [raw.pop("die1"), raw.pop("die2")]
        return raw

    monkeypatch.setattr(e.DiceRolled, "schema_version", 2)
    monkeypatch.setitem(e.UPCASTERS, ("dice_rolled", 1), v1_to_v2)
    old = b'{"type":"dice_rolled","player":"ann","die1":6,"die2":5}'
    assert e.decode("dice_rolled", 1, old) == e.DiceRolled(player="ann", dice=(6, 5))
    # The current version decodes directly; stored bytes are never rewritten.
    assert e.decode("dice_rolled", 2, e.encode(e.DiceRolled(player="bob", dice=(1, 2)))) == (
        e.DiceRolled(player="bob", dice=(1, 2))
    )


def test_a_payload_from_a_newer_server_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="newer"):
        e.decode("dice_rolled", 7, b'{"type":"dice_rolled","player":"a","dice":[1,2]}')


def test_a_money_game_to_the_end_and_the_fold_equals_the_state() -> None:
    t = Table("money", seed=3)
    t.do("ann", c.Join())
    t.do("bob", c.Join())
    assert t.state.in_game and t.state.game_no == 1
    play_duel(t, random.Random(1), steps=400)
    assert t.state.game_no >= 2  # money play starts the next game by itself
    assert fold(t.log) == t.state
    assert sum(v for _, v in t.state.ledger) == 0
    ended = [ev for ev in t.log if isinstance(ev, e.GameEnded)]
    assert ended and all(sum(s.amount for s in ev.settlements) == 0 for ev in ended)
    assert all(ev.seed for ev in ended)


def test_a_match_ends_with_match_ended_and_refuses_more() -> None:
    t = Table("match", seed=5, match_length=3)
    t.do("ann", c.Join())
    t.do("bob", c.Join())
    play_duel(t, random.Random(2), steps=20000, cube=0.1)
    assert t.state.match_winner in ("ann", "bob")
    assert isinstance(t.log[-1], e.MatchEnded)
    assert max(t.log[-1].score) >= 3
    with pytest.raises(CommandError, match=r"^the match is over$"):
        t.do("ann", c.Roll())
    assert fold(t.log) == t.state


def test_match_tables_refuse_money_options() -> None:
    with pytest.raises(CommandError, match="do not apply in match play"):
        Table("match", match_length=5, beavers=True)
    with pytest.raises(CommandError, match="at least 1"):
        Table("match")


def test_the_opening_throw_rethrows_ties_in_one_command() -> None:
    t = Table("money")
    t.dice = ScriptedDice([(3, 3), (5, 5), (6, 2)])
    t.do("ann", c.Join())
    t.do("bob", c.Join())
    events = t.do("bob", c.Roll())
    assert [ev.dice for ev in events if isinstance(ev, e.OpeningThrow)] == [(3, 3), (5, 5), (6, 2)]
    game = t.state.game
    assert game is not None and game.phase is Phase.MOVE and game.dice == (6, 2)
    assert t.state.seats[game.turn] == "ann"
    assert t.state.dice_counter == 6


def test_refused_commands_return_no_events_and_name_the_reason() -> None:
    t = Table("money")
    t.dice = ScriptedDice([(6, 1), (3, 2)])
    t.do("ann", c.Join())
    with pytest.raises(NotAllowedError):
        t.do("bob", c.Roll())  # not seated
    t.do("bob", c.Join())
    t.do("ann", c.Roll())  # the opening: ann plays 61
    before = t.state
    with pytest.raises(NotYourTurnError):
        t.do("bob", c.Move(notation="13/7 8/7"))
    with pytest.raises(IllegalPlayError, match="must use both dice"):
        t.do("ann", c.Move(notation="13/7"))
    with pytest.raises(CommandError, match="either"):
        t.do("ann", c.Move())
    with pytest.raises(CommandError, match="chouette"):
        t.do("ann", c.Take(cube="bob"))
    assert t.state == before
    t.do("ann", c.Move(notation="13/7 8/7"))
    assert t.state.version == before.version + 1


def test_client_seeds_only_before_the_first_throw() -> None:
    t = Table("money")
    t.do("ann", c.Join())
    t.do("bob", c.Join())
    t.do("ann", c.AddSeed(seed="lucky"))
    t.do("bob", c.AddSeed(seed="me too"))
    assert t.state.client_seeds == ("lucky", "me too")
    t.do("ann", c.Roll())
    with pytest.raises(CommandError, match="before the game's first throw"):
        t.do("bob", c.AddSeed(seed="late"))


def test_evolve_refuses_an_event_the_rules_do_not_allow() -> None:
    t = Table("money")
    t.do("ann", c.Join())
    t.do("bob", c.Join())
    with pytest.raises(EngineError):
        evolve(t.state, e.DiceRolled(player="ann", dice=(1, 2)))  # the opening comes first


def _drive_chouette(t: Table, rng: random.Random, games: int) -> None:
    for _ in range(20000):
        s = t.state
        if s.game_no > games:
            return
        ch = s.chouette
        assert ch is not None
        skip = (Action.ADVISE, Action.LEAVE, Action.JOIN, Action.ORDER_THROW)
        acts = sorted((p, a) for p in s.members for a in ch.allowed(p) if a not in skip)
        p, a = rng.choice(acts)
        if a in (Action.OPENING_THROW, Action.ROLL):
            t.do(p, c.Roll())
        elif a is Action.MOVE:
            play = rng.choice(ch.legal_plays())
            t.do(p, c.Move(moves=[list(m) for m in play.moves]))  # type: ignore[misc]
        elif a is Action.START_GAME:
            t.do(p, c.StartGame())
        else:
            targets = sorted(ch.targets(p, a))
            box = p == ch.box
            if a is Action.DOUBLE:
                if rng.random() < 0.8:
                    continue
                t.do(p, c.Double(cubes=targets if box else []))
            elif a is Action.RESIGN:
                if rng.random() < 0.95:
                    continue
                t.do(p, c.Resign(level=1, to=targets if box else []))
            else:
                cls = {
                    Action.TAKE: c.Take,
                    Action.DROP: c.Drop,
                    Action.BEAVER: c.Beaver,
                    Action.ACCEPT: c.Accept,
                    Action.DECLINE: c.Decline,
                }[a]
                t.do(p, cls(cube=rng.choice(targets) if box else ""))
    raise AssertionError("the chouette did not finish its games")


def test_a_chouette_throws_for_the_line_then_plays_and_rotates() -> None:
    t = Table("chouette", seed=9, beavers=True)
    for p in ("ann", "bob", "cat", "dan"):
        t.do(p, c.Join())
    events = t.do("cat", c.StartGame())
    assert isinstance(events[0], e.GameStarted) and events[0].dice_commitment
    throws = [ev for ev in events if isinstance(ev, e.LineThrow)]
    assert throws and set(throws[0].throws) == {"ann", "bob", "cat", "dan"}
    ch = t.state.chouette
    assert ch is not None and ch.in_progress and sorted(ch.line) == ["ann", "bob", "cat", "dan"]
    _drive_chouette(t, random.Random(4), games=4)
    rotations = [ev for ev in t.log if isinstance(ev, e.LineRotated)]
    ended = [ev for ev in t.log if isinstance(ev, e.GameEnded)]
    assert len(rotations) == len(ended) >= 4
    assert all(sum(s.amount for s in ev.settlements) == 0 for ev in ended)
    assert sum(t.state.chouette.ledger.values()) == 0  # type: ignore[union-attr]
    assert fold(t.log) == t.state


def test_evolve_refuses_a_tampered_settlement() -> None:
    t = Table("chouette", seed=2)
    for p in ("ann", "bob", "cat"):
        t.do(p, c.Join())
    t.do("ann", c.StartGame())
    _drive_chouette(t, random.Random(3), games=1)
    i = next(i for i, ev in enumerate(t.log) if isinstance(ev, e.GameEnded))
    ev = t.log[i]
    assert isinstance(ev, e.GameEnded)
    forged = msgspec.structs.replace(
        ev, settlements=[msgspec.structs.replace(s, amount=s.amount * 2) for s in ev.settlements]
    )
    with pytest.raises(EngineError, match="settlements"):
        fold([*t.log[:i], forged])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["money", "match", "chouette"]))
def test_fold_of_stored_events_equals_the_live_state(seed: int, kind: str) -> None:
    rng = random.Random(seed)
    if kind == "chouette":
        t = Table(kind, seed=seed, beavers=True, jacoby=True)
        for p in ("ann", "bob", "cat")[: rng.randint(2, 3)]:
            t.do(p, c.Join())
        t.do("ann", c.StartGame())
        _drive_chouette(t, rng, games=1)
    else:
        opts = {"match_length": 3} if kind == "match" else {"beavers": True}
        t = Table(kind, seed=seed, **opts)
        t.do("ann", c.Join())
        t.do("bob", c.Join())
        play_duel(t, rng, steps=300, cube=0.1)
    assert fold(t.log) == t.state
    assert t.state.version == len(t.log)

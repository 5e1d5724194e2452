"""A GNU Backgammon ``.mat`` file read back as the events of a new table.

:func:`import_mat` runs every action of the file through the decider with the file's dice, so an
imported table is as legal as a played one (its dice, never committed to, cannot be audited).

GNU Backgammon records a resignation offered after rolling (which it allows) as the throw with
no play, then the winner's ``Wins`` line. Here a player resigns on their turn before rolling
(docs/rules.md §4), which ends the game with the same result: the throw is left out. A file whose
last game ends with a throw and no play (GNU Backgammon throws a new game's opening at once)
imports with that game in play, waiting for the play. The one form that cannot be imported is a
resignation right after the opening throw: that player has no turn before it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.errors import EngineError
from engine.game import Phase
from engine.matfile import MatAction, MatFormatError, MatGame, parse_mat
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve
from events.domain.table import CommandError, TableState

__all__ = ["import_mat"]


class _FileDice:
    """The dice of an imported file, thrown in order. An imported game's dice were never
    committed to: its ``game_started`` carries no commitment and its ``game_ended`` no seed,
    which the audit reports as uncommitted (legal, but not provably fair)."""

    def __init__(self) -> None:
        self.queue: list[int] = []

    def commitment(self, game: int) -> str:
        return ""

    def reveal(self, game: int) -> str:
        return ""

    def die(self, game: int, counter: int, clients: Sequence[str] = ()) -> int:
        if not self.queue:
            raise MatFormatError(f"game {game}: the file has no throw here")
        return self.queue.pop(0)


def _player_ids(names: tuple[str, str]) -> tuple[str, str]:
    ids = [("mat:" + (" ".join(n.split()) or f"player {i + 1}"))[:64] for i, n in enumerate(names)]
    if ids[0] == ids[1]:
        ids[1] = ids[1][:62] + "-2"
    return ids[0], ids[1]


def import_mat(text: str, table_id: str) -> list[list[e.Event]]:
    """The events of a new table that replays a ``.mat`` file, one list per command.

    Every action goes through the decider, so an illegal play or cube action in the file is
    refused with the engine's reason and the game and entry it is in. A game's opening throw is
    rebuilt from its first roll (the mover has the higher die); a resignation (``Wins`` before
    the game is over) must come when the resigning player may offer it here: on their turn,
    before rolling.

    :raises MatFormatError: a file that cannot be read or replayed.
    """
    match = parse_mat(text)
    if not match.games:
        raise MatFormatError("the file has no games")
    headers = {k.lower(): v.lower() for k, v in match.header}
    kind = "match" if match.length else "money"
    options = e.TableOptions(
        match_length=match.length,
        jacoby=kind == "money" and headers.get("jacoby", "off") in ("on", "true", "1", "yes"),
        beavers=kind == "money" and headers.get("beaver", "off") in ("on", "true", "1", "yes"),
    )
    ids = _player_ids(match.games[0].names or match.players)
    names = match.games[0].names or match.players
    dice = _FileDice()
    state = TableState(table_id=table_id)
    steps: list[list[e.Event]] = []

    def run(actor: str, command: c.Command, where: str) -> None:
        nonlocal state
        try:
            events = decide(state, actor, command, dice)
        except (EngineError, CommandError) as exc:
            raise MatFormatError(f"{where}: {exc}") from exc
        for ev in events:
            state = evolve(state, ev)
        steps.append(events)

    run(ids[0], c.CreateTable(kind=kind, options=options), "creating the table")  # type: ignore[arg-type]
    run(ids[0], c.Join(seat=0, display_name=names[0][:64]), "seating player 1")
    run(ids[1], c.Join(seat=1, display_name=names[1][:64]), "seating player 2")
    for number, mg in enumerate(match.games, 1):
        last_game = number == len(match.games)
        if not state.in_game and kind == "money" and state.game_no:
            run(ids[0], c.StartGame(), f"starting game {mg.number}")  # money waits for it
        if not state.in_game:
            raise MatFormatError(f"game {mg.number}: the match is already over")
        if mg.number != state.game_no:
            raise MatFormatError(f"game {mg.number} is game {state.game_no} of the replay")
        pending_beaver = False
        for n, a in enumerate(mg.actions, 1):
            where = f"game {mg.number}, entry {n} ({a.kind} by player {a.player + 1})"
            game = state.game
            if game is None or state.game_no != mg.number:
                if a.kind == "win":
                    continue  # the result line of a game that has ended
                raise MatFormatError(f"{where}: the game is already over")
            me = ids[a.player]
            if game.is_over:
                continue
            if a.kind == "roll":
                assert a.dice is not None
                if pending_beaver and game.phase is Phase.DOUBLED:
                    run(me, c.Take(), where)
                    game = state.game
                    assert game is not None
                pending_beaver = False
                before, done, opening = state, len(steps), game.phase is Phase.OPENING
                hi, lo = max(a.dice), min(a.dice)
                if game.phase is Phase.OPENING:
                    if hi == lo:
                        raise MatFormatError(f"{where}: a game cannot open with a double")
                    dice.queue = [hi, lo] if a.player == 0 else [lo, hi]
                else:
                    dice.queue = list(a.dice)
                run(me, c.Roll(), where)
                game = state.game
                assert game is not None
                if game.phase is Phase.MOVE and game.turn == a.player:
                    if not a.text.strip():
                        if _resigns_after(mg, n, a, where, opening):
                            # The throw is left out: the resignation comes before it.
                            state = before
                            del steps[done:]
                            continue
                        if last_game and n == len(mg.actions):
                            break  # the file ends here: the game is in play, the throw played
                        raise MatFormatError(
                            f"{where}: {a.dice[0]}{a.dice[1]} is written without its play"
                        )
                    run(me, c.Move(notation=a.text), where)
                elif a.text.strip():
                    raise MatFormatError(f"{where}: {a.text!r} written where no move is legal")
            elif a.kind == "double" and game.phase is Phase.DOUBLED:
                run(me, c.Beaver(), where)  # the doubled player redoubles at once: a beaver
            elif a.kind == "double":
                run(me, c.Double(), where)
            elif a.kind == "beaver":
                run(me, c.Beaver(), where)
                pending_beaver = True
            elif a.kind == "take":
                pending_beaver = False
                if game.phase is Phase.DOUBLED:
                    run(me, c.Take(), where)
            elif a.kind == "drop":
                run(me, c.Drop(), where)
            elif a.kind == "win":
                loser = ids[1 - a.player]
                cube = game.cube.value
                level = 1 if a.value <= cube else 2 if a.value <= 2 * cube else 3
                run(loser, c.Resign(level=level), where)
                run(me, c.Accept(), where)
    return steps


def _resigns_after(mg: MatGame, n: int, roll: MatAction, where: str, opening: bool) -> bool:
    """Whether a throw written with no play, where a play was legal (entry ``n``), is GNU
    Backgammon's resignation after a roll: the next entry is the other player's ``Wins``.

    :raises MatFormatError: a resignation right after the opening throw, or by the player who
        did not throw (neither has a place in these rules: docs/rules.md §4).
    """
    following = mg.actions[n] if n < len(mg.actions) else None
    if following is None or following.kind != "win":
        return False
    if opening:
        raise MatFormatError(
            f"{where}: a resignation right after the opening throw cannot be imported (a player"
            " resigns on their turn, before rolling: docs/rules.md §4)"
        )
    if following.player == roll.player:
        raise MatFormatError(
            f"{where}: the other player resigns while this one is to play, which these rules do"
            " not allow (a player resigns on their turn, before rolling: docs/rules.md §4)"
        )
    return True

"""A tournament's state: the fold of its facts (docs/tournaments.md).

:class:`Tournament` is an immutable value; :meth:`Tournament.apply` returns the state after one
fact or raises a precise :class:`~engine.errors.TournamentError`, and :meth:`Tournament.fold`
applies a whole sequence. The state knows who entered (and in what order), who withdrew, the
**field** in seed order (fixed when the first round is paired) and every round's boards with
their results. What the next round is, and the standings, are read from it by the format's
module (:mod:`~engine.tournament.pairing`, :mod:`~engine.tournament.standings`).

>>> t = Tournament.fold(
...     TournamentSpec(Format.SWISS, rounds=3),
...     [Entered("ann", 1600), Entered("bob", 1500), Entered("cat", 1700)],
... )
>>> t.field
('cat', 'ann', 'bob')
>>> t = t.apply(RoundPaired(1, (Pairing("cat", "bob"), Pairing("ann"))))
>>> t.rounds[0].boards[1].winner, t.rounds[0].is_complete
('ann', False)
>>> t = t.apply(Result(1, 1, "bob"))
>>> t.rounds[0].is_complete, t.is_finished
(True, False)
>>> t.apply(Entered("dan"))
Traceback (most recent call last):
...
engine.errors.TournamentError: 'dan' cannot enter: the first round has been paired
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from engine.errors import TournamentError
from engine.frozen import replace
from engine.tournament.facts import (
    Adjusted,
    Entered,
    Fact,
    Format,
    Pairing,
    Result,
    RoundPaired,
    TournamentSpec,
    Withdrew,
)

__all__ = ["Board", "Entrant", "Round", "Tournament", "seed_key"]


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player in the tournament, with the rating they are seeded by and when they entered."""

    player: str
    rating: float
    order: int
    """Entries counted from 0, in the order they were recorded."""


def seed_key(entrant: Entrant) -> tuple[float, int, str]:
    """The seeding order, best first: rating (highest first), then entry order (earliest first),
    then the player's id. **Choice:** every tie in the tournament is broken by this key last, so
    that pairing a round is a function of the facts alone."""
    return (-entrant.rating, entrant.order, entrant.player)


@dataclass(frozen=True, slots=True)
class Board:
    """One board of a round: its pairing and, once decided, its result."""

    number: int
    """From 1."""
    pairing: Pairing
    decided: bool = False
    winner: str | None = None
    """Who won the match (a bye's player; ``None`` for a double forfeit)."""
    forfeit: bool = False
    """The loser (both, with no winner) did not play."""
    reason: str | None = None
    """The reason of the director's last adjustment of this result."""

    @property
    def is_bye(self) -> bool:
        return self.pairing.is_bye

    @property
    def players(self) -> tuple[str, ...]:
        return self.pairing.players

    @property
    def loser(self) -> str | None:
        """Who lost a decided match (``None`` for a bye, an undecided board, or no loser)."""
        if not self.decided or self.pairing.b is None or self.winner is None:
            return None
        return self.pairing.b if self.winner == self.pairing.a else self.pairing.a

    def losers(self) -> tuple[str, ...]:
        """Everyone who lost this decided board: one player, or both after a double forfeit."""
        if not self.decided or self.is_bye:
            return ()
        return tuple(p for p in self.players if p != self.winner)


@dataclass(frozen=True, slots=True)
class Round:
    """A paired round and its boards."""

    number: int
    boards: tuple[Board, ...]

    @property
    def is_complete(self) -> bool:
        """Every board has its result."""
        return all(b.decided for b in self.boards)

    def board_of(self, player: str) -> Board | None:
        """The board ``player`` is on in this round, if any."""
        for board in self.boards:
            if player in board.players:
                return board
        return None


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament's state: what its facts add up to."""

    spec: TournamentSpec
    entrants: tuple[Entrant, ...] = ()
    withdrawn: frozenset[str] = frozenset()
    seeds: tuple[str, ...] = ()
    """The field in seed order, fixed when the first round is paired (empty before)."""
    rounds: tuple[Round, ...] = ()

    @classmethod
    def new(cls, spec: TournamentSpec) -> Tournament:
        return cls(spec)

    @classmethod
    def fold(cls, spec: TournamentSpec, facts: Iterable[Fact]) -> Tournament:
        """The state after ``facts``, in order, from a new tournament."""
        state = cls(spec)
        for fact in facts:
            state = state.apply(fact)
        return state

    # What the state says

    @property
    def format(self) -> Format:
        return self.spec.format

    @property
    def has_started(self) -> bool:
        """The first round has been paired: entries are closed and the field is fixed."""
        return bool(self.rounds)

    @property
    def field(self) -> tuple[str, ...]:
        """The players the tournament is played between, in seed order: before the start,
        everyone entered who has not withdrawn; after, the field fixed at the start."""
        if self.seeds:
            return self.seeds
        active = [e for e in self.entrants if e.player not in self.withdrawn]
        return tuple(e.player for e in sorted(active, key=seed_key))

    @property
    def active(self) -> tuple[str, ...]:
        """The field without those who have withdrawn, in seed order."""
        return tuple(p for p in self.field if p not in self.withdrawn)

    def entrant(self, player: str) -> Entrant:
        """``player``'s entry.

        :raises TournamentError: ``player`` has not entered."""
        for e in self.entrants:
            if e.player == player:
                return e
        raise TournamentError(f"{player!r} has not entered")

    @property
    def total_rounds(self) -> int | None:
        """How many rounds the tournament has (``None`` before the field is fixed, except for
        a Swiss tournament, whose rounds are set up front)."""
        if self.spec.format is Format.SWISS:
            return self.spec.rounds
        n = len(self.seeds)
        if not n:
            return None
        if self.spec.format is Format.KNOCKOUT:
            return (n - 1).bit_length()
        return n - 1 if n % 2 == 0 else n

    @property
    def last_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def is_finished(self) -> bool:
        """Every round has been paired and decided."""
        last = self.last_round
        return last is not None and last.number == self.total_rounds and last.is_complete

    @property
    def awaiting_pairing(self) -> bool:
        """The tournament has started, its last round is decided, and another is due."""
        last = self.last_round
        return last is not None and last.is_complete and not self.is_finished

    def board(self, round: int, board: int) -> Board:
        """Board ``board`` of round ``round`` (both from 1).

        :raises TournamentError: no such round or board."""
        if not isinstance(round, int) or not 1 <= round <= len(self.rounds):
            raise TournamentError(f"no round {round!r}: {len(self.rounds)} paired")
        boards = self.rounds[round - 1].boards
        if not isinstance(board, int) or not 1 <= board <= len(boards):
            raise TournamentError(f"no board {board!r} in round {round}: {len(boards)} boards")
        return boards[board - 1]

    # The fold

    def apply(self, fact: Fact) -> Tournament:
        """The state after ``fact``.

        :raises TournamentError: a fact the rules do not allow now."""
        match fact:
            case Entered(player, rating):
                return self._entered(player, rating)
            case Withdrew(player):
                return self._withdrew(player)
            case RoundPaired(number, pairings):
                return self._paired(number, pairings)
            case Result(number, board, winner, forfeit):
                return self._decided(number, board, winner, forfeit, None)
            case Adjusted(number, board, winner, reason, forfeit):
                return self._decided(number, board, winner, forfeit, reason)
        raise TournamentError(f"not a tournament fact: {fact!r}")

    def _entered(self, player: str, rating: float) -> Tournament:
        if not isinstance(player, str) or not player:
            raise TournamentError(f"a player is a non-empty string: {player!r}")
        if (
            not isinstance(rating, int | float)
            or isinstance(rating, bool)
            or not math.isfinite(rating)
        ):
            raise TournamentError(f"{player!r}'s rating must be a finite number: {rating!r}")
        if self.has_started:
            raise TournamentError(f"{player!r} cannot enter: the first round has been paired")
        if any(e.player == player for e in self.entrants):
            raise TournamentError(f"{player!r} has already entered")
        if len(self.field) >= self.spec.max_field:
            raise TournamentError(
                f"{player!r} cannot enter: a {self.spec.format} tournament takes at most "
                f"{self.spec.max_field} players"
            )
        entrant = Entrant(player, float(rating), len(self.entrants))
        return replace(self, entrants=(*self.entrants, entrant))

    def _withdrew(self, player: str) -> Tournament:
        self.entrant(player)
        if player in self.withdrawn:
            raise TournamentError(f"{player!r} has already withdrawn")
        if self.is_finished:
            raise TournamentError(f"{player!r} cannot withdraw: the tournament is over")
        state = replace(self, withdrawn=self.withdrawn | {player})
        last = state.last_round
        if last is None:
            return state
        board = last.board_of(player)
        if board is None or board.decided:
            return state
        return state._with_board(last.number, state._walkover(board))

    def _paired(self, number: int, pairings: tuple[Pairing, ...]) -> Tournament:
        expected = len(self.rounds) + 1
        if number != expected:
            raise TournamentError(f"round {number!r} cannot be paired: round {expected} is next")
        last = self.last_round
        if last is not None and not last.is_complete:
            raise TournamentError(f"round {number} cannot be paired: round {last.number} is on")
        if self.is_finished:
            raise TournamentError(f"round {number} cannot be paired: the tournament is over")
        state = self
        if not self.has_started:
            field = self.field
            if len(field) < 2:
                raise TournamentError(
                    f"the first round needs at least 2 players: {len(field)} entered"
                )
            state = replace(self, seeds=field)
        if not isinstance(pairings, tuple) or not pairings:
            raise TournamentError(f"round {number} has no boards")
        seen: set[str] = set()
        in_field = set(state.seeds)
        for p in pairings:
            if not isinstance(p, Pairing):
                raise TournamentError(f"round {number}: not a pairing: {p!r}")
            for player in p.players:
                if player not in in_field:
                    raise TournamentError(f"round {number}: {player!r} is not in the field")
                if player in seen:
                    raise TournamentError(f"round {number}: {player!r} is paired twice")
                seen.add(player)
        boards = []
        for i, p in enumerate(pairings, 1):
            board = Board(i, p)
            if p.is_bye:
                board = replace(board, decided=True, winner=p.a)
            elif any(x in state.withdrawn for x in p.players):
                board = state._walkover(board)
            boards.append(board)
        return replace(state, rounds=(*state.rounds, Round(number, tuple(boards))))

    def _walkover(self, board: Board) -> Board:
        """``board`` decided because a player on it has withdrawn: the other wins by forfeit.
        **Choice:** when both have withdrawn, nobody wins, except in a knockout, where the
        higher seed (``a``) goes through, to forfeit the next match in turn."""
        a, b = board.pairing.a, board.pairing.b
        out_a, out_b = a in self.withdrawn, b in self.withdrawn
        if out_a and out_b:
            winner = a if self.spec.format is Format.KNOCKOUT else None
        else:
            winner = b if out_a else a
        return replace(board, decided=True, winner=winner, forfeit=True)

    def _decided(
        self, number: int, n: int, winner: str | None, forfeit: bool, reason: str | None
    ) -> Tournament:
        board = self.board(number, n)
        what = f"round {number} board {n}"
        if board.is_bye:
            raise TournamentError(f"{what} is {board.pairing.a}'s bye: it has no result")
        if reason is None and board.decided:
            raise TournamentError(f"{what} is already decided: a director adjusts it")
        if reason is not None:
            if not board.decided:
                raise TournamentError(f"{what} is not decided yet: there is nothing to adjust")
            if not isinstance(reason, str) or not reason.strip():
                raise TournamentError(f"an adjustment of {what} needs a reason")
            if self.spec.format is Format.KNOCKOUT and number != len(self.rounds):
                raise TournamentError(
                    f"{what} cannot be adjusted: the next round has been paired from it"
                )
        if winner is None:
            if self.spec.format is Format.KNOCKOUT:
                raise TournamentError(f"{what}: a knockout match needs a winner")
            if not forfeit:
                raise TournamentError(f"{what}: without a winner, both players forfeit")
        elif winner not in board.players:
            raise TournamentError(f"{what}: {winner!r} is not playing on it")
        if not isinstance(forfeit, bool):
            raise TournamentError(f"{what}: forfeit is true or false: {forfeit!r}")
        decided = replace(board, decided=True, winner=winner, forfeit=forfeit, reason=reason)
        return self._with_board(number, decided)

    def _with_board(self, number: int, board: Board) -> Tournament:
        r = self.rounds[number - 1]
        boards = tuple(board if b.number == board.number else b for b in r.boards)
        rounds = tuple(replace(r, boards=boards) if x.number == number else x for x in self.rounds)
        return replace(self, rounds=rounds)

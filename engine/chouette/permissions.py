"""Who may do what at a chouette, now, and on whose cube (docs/rules.md §8).

:func:`check` is the single source of truth: it raises the precise reason why a player may not
take an action (on a member's cube, for the box's cube actions). Everything else is built on it:
:func:`permits` and :func:`allowed`/:func:`targets` (what a client may offer), and
:func:`offer_targets`/:func:`answer_targets` (on whose cubes an offer or an answer applies), which
the table's actions call before they change anything. So an action is allowed exactly when
trying it does not raise.

The functions read the table through :class:`Table`, which
:class:`~engine.chouette.table.Chouette` is: the table's thin methods call them with ``self``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from engine.actions import Action
from engine.chouette.game import ChouetteGame
from engine.chouette.line import LineOrder, player_ids
from engine.chouette.options import TARGETED_ACTIONS, ChouetteOptions, Consultation, Side
from engine.chouette.text import CAPTAIN_DOES, VERBS, out_reason
from engine.errors import (
    ChouetteError,
    CubeError,
    EngineError,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
    ResignationError,
)
from engine.frozen import replace
from engine.game import Phase

__all__ = [
    "Table",
    "allowed",
    "answer_targets",
    "batch_after",
    "check",
    "current",
    "offer_targets",
    "permits",
    "start_error",
    "targets",
    "who",
]


class Table(Protocol):
    """What the checks read of a chouette. :class:`~engine.chouette.table.Chouette` is one; a
    protocol, so that this module does not import the table whose methods call it."""

    @property
    def options(self) -> ChouetteOptions: ...

    @property
    def line(self) -> tuple[str, ...]: ...

    @property
    def ordering(self) -> LineOrder | None: ...

    @property
    def game(self) -> ChouetteGame | None: ...

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def in_progress(self) -> bool: ...


# -- what a client may offer ----------------------------------------------------------------


def permits(table: Table, player: str, action: Action, target: str | None) -> bool:
    """Whether :func:`check` lets ``player`` take ``action`` (on ``target``'s cube) now."""
    if _refused_at_a_glance(table, player, action, target):
        return False
    try:
        check(table, player, action, target)
    except EngineError:
        return False
    return True


_ANSWERS_ON_THE_CUBE = frozenset({Action.TAKE, Action.DROP, Action.BEAVER})
_ANSWERS_TO_RESIGNATIONS = frozenset({Action.ACCEPT, Action.DECLINE})


def _refused_at_a_glance(table: Table, player: str, action: Action, target: str | None) -> bool:
    """True for the most common refusals, read off the game without raising: the checks
    :func:`check` itself makes first for a game in progress (after :func:`current`), so that
    :func:`permits` is True exactly when :func:`check` does not raise, and False is found
    without wording an error. A throw's message asks every viewer about every action (some
    eighty checks at a chouette of four, nearly all refused); raising each refusal was a
    tenth of the server's CPU (issue 30). False means only: ask :func:`check`.
    ``tests/engine/test_chouette_permits.py`` compares it with :func:`check` over random
    evenings."""
    if action is Action.ORDER_THROW:
        return table.ordering is None or player not in table.ordering.to_throw
    if action is Action.START_GAME:
        return table.ordering is not None or table.in_progress
    g = table.game
    if g is None or table.ordering is not None or g.is_over:
        return False  # current() words these
    if action is Action.ADVISE:
        return (
            player == g.box
            or player == g.acting_captain
            or table.options.consultation is Consultation.NONE
        )
    if action is Action.MOVE:
        return g.phase is not Phase.MOVE or player != g.on_roll
    if action is Action.ROLL:
        return g.phase is Phase.MOVE or player != g.on_roll
    if action is Action.OPENING_THROW:
        return g.phase is not Phase.OPENING
    if action is Action.DOUBLE or action is Action.RESIGN:
        return g.phase is Phase.MOVE or g.phase is Phase.OPENING
    if action in _ANSWERS_ON_THE_CUBE or action in _ANSWERS_TO_RESIGNATIONS:
        whose = target if player == g.box else player
        if whose is None:
            return False  # the box's general check: check says
        m = g.member(whose)
        if m is None:
            return True
        return (m.pending if action in _ANSWERS_ON_THE_CUBE else m.resignation) is None
    return False


def allowed(table: Table, player: str) -> frozenset[Action]:
    """The actions ``player`` may take now. Each action not in it raises if tried; for the
    actions on a cube, :func:`targets` says which members' cubes."""
    if player not in table.players:
        ok = isinstance(player, str) and bool(player)
        return frozenset({Action.JOIN}) if ok else frozenset()
    acts = {Action.LEAVE}
    for action in (
        Action.ORDER_THROW,
        Action.START_GAME,
        Action.OPENING_THROW,
        Action.ROLL,
        Action.MOVE,
        Action.ADVISE,
    ):
        if permits(table, player, action, None):
            acts.add(action)
    acts.update(a for a in TARGETED_ACTIONS if targets(table, player, a))
    return frozenset(acts)


def targets(table: Table, player: str, action: Action) -> frozenset[str]:
    """The members whose cubes ``player`` may apply ``action`` (double, take, drop, beaver,
    resign, accept, decline) to now: for a member, themselves or nobody; for the box, each
    member it may double, answer or offer to."""
    g = table.game
    if action not in TARGETED_ACTIONS or not table.in_progress or g is None:
        return frozenset()
    if player == g.box:
        return frozenset(m for m in g.in_game if permits(table, player, action, m))
    return frozenset({player}) if permits(table, player, action, None) else frozenset()


# -- the checks -----------------------------------------------------------------------------


def who(table: Table, player: str) -> str:
    """``player`` as error messages name them: with "(box)" or "(captain)" during a game."""
    g = table.game
    if table.in_progress and g is not None:
        if player == g.box:
            return f"{player} (box)"
        if player == g.acting_captain:
            return f"{player} (captain)"
    return player


class _Cannot:
    """The start of an error's message, ``"<who> cannot <verb>"`` (:func:`who`), worded only
    when an error is raised: every action checks its permission, a fold's too, and nearly
    every check passes. It reads as the text in an f-string."""

    __slots__ = ("_player", "_table", "_verb")

    def __init__(self, table: Table, player: str, verb: str) -> None:
        self._table, self._player, self._verb = table, player, verb

    def __str__(self) -> str:
        return f"{who(self._table, self._player)} cannot {self._verb}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def _whom(player: str | None, what: str) -> str:
    return f"{player} cannot {what}" if player is not None else f"cannot {what}"


def start_error(table: Table) -> IllegalActionError | None:
    """Why the next game cannot start now, or None if it can."""
    if table.ordering is not None:
        return ChouetteError(
            f"cannot start a game: the line is still being thrown for "
            f"({', '.join(table.ordering.to_throw)} to throw)"
        )
    if table.in_progress:
        assert table.game is not None
        return IllegalActionError(f"cannot start a game: game {table.game.number} is in progress")
    if len(table.line) < 2:
        return ChouetteError(
            f"cannot start a game: it takes two players, the line is {table.line!r}"
        )
    return None


def current(table: Table, what: str, player: str | None = None) -> ChouetteGame:
    """The game in progress, with ``player`` (if given) the box or a member still in it.

    :raises ChouetteError: ``player`` is not at the table.
    :raises IllegalActionError: no game is in progress (:class:`GameOverError`: it is over).
    :raises NotYourTurnError: ``player`` is not in this game, or their game is settled.
    """
    if player is not None and player not in table.players:
        raise ChouetteError(f"{player!r} cannot {what}: not at this chouette")
    if table.ordering is not None:
        raise IllegalActionError(f"{_whom(player, what)}: the line is still being thrown for")
    g = table.game
    if g is None:
        raise IllegalActionError(f"{_whom(player, what)}: no game has started")
    if g.is_over:
        raise GameOverError(f"{_whom(player, what)}: game {g.number} is over")
    if player is None or player == g.box:
        return g
    m = g.member(player)
    if m is None:
        raise NotYourTurnError(
            f"{_whom(player, what)}: {player} joined during game {g.number} and plays from the next"
        )
    if m.settlement is not None:
        raise NotYourTurnError(
            f"{_whom(player, what)}: {player} {out_reason(m.settlement)} and takes no further "
            "part in this game"
        )
    return g


def check(table: Table, player: str, action: Action, target: str | None) -> None:
    """Raise the precise reason why ``player`` may not take ``action`` now (on ``target``'s
    cube, for the box's cube actions; None for a member's own cube or for the general checks).
    The single source of truth for :func:`allowed` and the actions."""
    if action is Action.JOIN:
        if not isinstance(player, str) or not player:
            raise ChouetteError(f"a player id must be a non-empty string: {player!r}")
        if player in table.players:
            raise ChouetteError(f"{player} cannot join: already at this chouette")
        return
    if player not in table.players:
        raise ChouetteError(f"{player!r} cannot {action.value}: not at this chouette")
    match action:
        case Action.LEAVE:
            return
        case Action.ORDER_THROW:
            if table.ordering is None or player not in table.ordering.to_throw:
                raise ChouetteError(f"{player} does not throw for the line now")
            return
        case Action.START_GAME:
            error = start_error(table)
            if error is not None:
                raise error
            return
    verb = VERBS[action]
    g = current(table, verb, player)
    cannot = _Cannot(table, player, verb)
    match action:
        case Action.OPENING_THROW:
            if g.phase is not Phase.OPENING:
                raise IllegalActionError(f"{cannot}: the opening throw is made")
            if player not in (g.box, g.acting_captain):
                raise NotYourTurnError(f"{cannot}: only the box and the captain throw")
        case Action.ADVISE:
            _check_advice(table.options, g, player, cannot)
        case Action.ROLL | Action.MOVE:
            _check_checkers(g, player, action, cannot)
        case _ if g.phase is Phase.OPENING:
            raise IllegalActionError(f"{cannot}: the opening throw is not made")
        case Action.DOUBLE | Action.RESIGN:
            _check_offer(table.options, g, player, action, target, cannot)
        case _:
            _check_answer(table.options, g, player, action, target, cannot)


def _check_advice(options: ChouetteOptions, g: ChouetteGame, player: str, cannot: _Cannot) -> None:
    """docs/rules.md §8, Consultation: never the box or the captain; otherwise the policy."""
    if player == g.box:
        raise ChouetteError(f"{cannot}: the box never hears the team's counsel")
    if player == g.acting_captain:
        raise ChouetteError(f"{cannot}: the captain decides, advice is for the others")
    policy = options.consultation
    if policy is Consultation.NONE:
        raise ChouetteError(f"{cannot}: no consultation at this chouette")
    m = g.member(player)
    assert m is not None
    if policy is Consultation.AFTER_CUBE and not m.turned:
        raise ChouetteError(f"{cannot}: no cube, no talk ({player}'s cube is not turned)")


def _check_checkers(g: ChouetteGame, player: str, action: Action, cannot: _Cannot) -> None:
    """Roll or move: the dice in the right state, by the player on roll, nothing pending."""
    if action is Action.ROLL and g.phase is Phase.MOVE:
        raise IllegalActionError(f"{cannot}: the dice are already rolled")
    if action is Action.MOVE and g.phase is not Phase.MOVE:
        raise IllegalActionError(f"{cannot}: the dice are not rolled")
    if player != g.on_roll:
        if g.turn is Side.BOX:
            raise NotYourTurnError(f"{cannot}: the box is on roll")
        if player == g.box:
            raise NotYourTurnError(f"{cannot}: the team is on roll")
        raise NotYourTurnError(
            f"{cannot}: only the captain ({g.acting_captain}) {CAPTAIN_DOES[action]} for the team"
        )
    if action is Action.ROLL:
        for m in g.members:
            if m.in_game and m.pending is not None:
                to = "the box's" if m.pending.responder == Side.BOX else f"{m.player}'s"
                raise CubeError(f"{cannot}: waiting for {to} answer on {m.player}'s cube")
        for m in g.members:
            if m.in_game and m.resignation is not None:
                to = f"{m.player}'s" if m.resignation.by == Side.BOX else "the box's"
                raise ResignationError(
                    f"{cannot}: waiting for {to} answer to the resignation on {m.player}'s cube"
                )


def _check_offer(
    options: ChouetteOptions,
    g: ChouetteGame,
    player: str,
    action: Action,
    target: str | None,
    cannot: _Cannot,
) -> None:
    """A double or a resignation offer, made before the roll by the side on turn."""
    error: type[IllegalActionError] = CubeError if action is Action.DOUBLE else ResignationError
    when = "doubles" if action is Action.DOUBLE else "offers"
    is_box = player == g.box
    if g.phase is Phase.MOVE:
        raise error(f"{cannot}: the dice are already rolled; {when} come before the roll")
    if is_box and g.turn is Side.TEAM:
        raise NotYourTurnError(
            f"{cannot}: the team is on roll; the box {when[:-1]}s at the start of its own turn"
        )
    if not is_box and g.turn is Side.BOX:
        raise NotYourTurnError(
            f"{cannot}: the box is on roll; members {when[:-1]} at the start of the team's turn"
        )
    if not is_box:
        if target is not None and target != player:
            if action is Action.DOUBLE:
                raise CubeError(f"{cannot} {target}'s cube: each member doubles only their own")
            raise ResignationError(
                f"{cannot} for {target}: each member resigns only their own game"
            )
        if action is Action.DOUBLE and options.single and player != g.acting_captain:
            raise CubeError(
                f"{cannot}: with a single cube the captain ({g.acting_captain}) decides the "
                f"team's doubles"
            )
        target = player
    if target is None:
        return
    m = g.member(target)
    if m is None or not m.in_game:
        raise error(f"{cannot} {target!r}: not in this game")
    whose = "the team's" if options.single else f"{player}'s"
    if action is Action.DOUBLE and m.cube.owner == (Side.TEAM if is_box else Side.BOX):
        if not is_box:
            raise CubeError(f"{cannot}: the box owns {whose} cube")
        if options.single:
            raise CubeError(f"{cannot}: the team owns the cube")
        raise CubeError(f"{cannot} {target}: {target} owns their cube")
    # With a single cube a double turns every member's cube: all must be free.
    concerned = (
        [x for x in g.members if x.in_game] if action is Action.DOUBLE and options.single else [m]
    )
    for x in concerned:
        if x.pending is not None:
            raise CubeError(f"{cannot}: a double on {x.player}'s cube waits for an answer")
        if x.resignation is not None:
            raise ResignationError(
                f"{cannot}: a resignation offer on {x.player}'s cube waits for an answer"
            )


def _check_answer(
    options: ChouetteOptions,
    g: ChouetteGame,
    player: str,
    action: Action,
    target: str | None,
    cannot: _Cannot,
) -> None:
    """Take, drop, beaver (a pending double) or accept, decline (a resignation offer)."""
    is_box = player == g.box
    cube_action = action in (Action.TAKE, Action.DROP, Action.BEAVER)
    error: type[IllegalActionError] = CubeError if cube_action else ResignationError
    if not is_box:
        if target is not None and target != player:
            raise error(f"{cannot} for {target}: each member answers only for their own cube")
        target = player
    if target is None:
        return
    m = g.member(target)
    if m is None or not m.in_game:
        raise error(f"{cannot} {target!r}: not in this game")
    me = Side.BOX if is_box else Side.TEAM
    if cube_action:
        p = m.pending
        if p is None:
            raise CubeError(f"{cannot}: no double is waiting on {target}'s cube")
        if p.responder != me:
            to = g.box if p.responder == Side.BOX else target
            raise NotYourTurnError(f"{cannot}: the answer on {target}'s cube is {to}'s")
        if action is Action.BEAVER:
            if not options.beavers:
                raise CubeError(f"{cannot}: beavers are not allowed at this chouette")
            if p.beavered:
                raise CubeError(f"{cannot}: the double on {target}'s cube is already beavered")
            if options.single and not is_box:
                raise CubeError(
                    f"{cannot}: with a single cube the team does not beaver (each member "
                    f"answers the box alone)"
                )
        if is_box:
            _check_half(options, g, target, action is not Action.DROP, cannot)
        return
    r = m.resignation
    if r is None:
        raise ResignationError(f"{cannot}: no resignation is offered on {target}'s cube")
    if r.by == me:
        to = target if is_box else g.box
        raise NotYourTurnError(f"{cannot}: the offer on {target}'s cube is {to}'s to answer")


def _half_batch(
    options: ChouetteOptions, g: ChouetteGame, target: str
) -> tuple[tuple[str, bool | None], ...]:
    """The take-half batch ``target`` belongs to, forming it if this is the box's first
    answer among several initial doubles; empty if the rule does not apply."""
    if not options.box_must_take_half or options.single:
        return ()
    if any(p == target and a is None for p, a in g.batch):
        return g.batch
    if g.batch:
        return ()
    initial = tuple(
        (m.player, None)
        for m in g.members
        if m.in_game
        and m.pending is not None
        and m.pending.responder == Side.BOX
        and not m.pending.beavered
        and m.cube.owner is None
    )
    if len(initial) < 2 or all(p != target for p, _ in initial):
        return ()
    return initial


def _check_half(
    options: ChouetteOptions, g: ChouetteGame, target: str, took: bool, cannot: _Cannot
) -> None:
    """The take-half house rule: would this answer leave the box able to take half?"""
    batch = _half_batch(options, g, target)
    if not batch:
        return
    n = len(batch)
    need = (n + 1) // 2
    takes = sum(1 for _, a in batch if a)
    left = sum(1 for _, a in batch if a is None)  # including this one
    ok = takes + left >= need if took else takes == 0 or takes + left - 1 >= need
    if not ok:
        raise CubeError(
            f"{cannot}: doubled on {n} initial cubes at once, the box must take at least "
            f"{need} of them or drop them all ({takes} taken so far)"
        )


def batch_after(
    options: ChouetteOptions, g: ChouetteGame, player: str, names: Sequence[str], took: bool
) -> tuple[tuple[str, bool | None], ...]:
    """The take-half batch once the box has answered ``names`` (before the answer is
    applied to the cubes)."""
    batch = g.batch
    if player != g.box:
        return batch
    for name in names:
        formed = _half_batch(options, replace(g, batch=batch), name)
        if formed:
            batch = tuple((p, took if p == name else a) for p, a in formed)
            if all(a is not None for _, a in batch):
                batch = ()
    return batch


# -- on whose cubes -------------------------------------------------------------------------


def offer_targets(
    table: Table, player: str, action: Action, members: Iterable[str] | None
) -> tuple[ChouetteGame, tuple[str, ...], Side]:
    """Check a double or a resignation offer; say on whose cubes it is made, and by which
    side. A member offers on their own cube (with a single cube, the captain doubles every
    member's); the box on ``members`` or, by default, on every cube it may."""
    verb = VERBS[action]
    g = current(table, verb, player)
    if player != g.box:
        others = [m for m in members or () if m != player]
        check(table, player, action, others[0] if others else None)
        team_double = action is Action.DOUBLE and table.options.single
        return g, g.in_game if team_double else (player,), Side.TEAM
    check(table, player, action, None)
    error: type[IllegalActionError] = CubeError if action is Action.DOUBLE else ResignationError
    if members is None:
        names = tuple(m for m in g.in_game if permits(table, player, action, m))
        if not names:
            why = (
                "every member's cube is owned by its member or waiting for an answer"
                if action is Action.DOUBLE
                else "every member's cube is waiting for an answer"
            )
            raise error(f"{who(table, player)} cannot {verb}: {why}")
        return g, names, Side.BOX
    names = player_ids(members, "member")
    if not names:
        raise error(f"{who(table, player)} cannot {verb}: name the members")
    for name in names:
        check(table, player, action, name)
    return g, names, Side.BOX


def answer_targets(
    table: Table, player: str, action: Action, member: str | None
) -> tuple[ChouetteGame, tuple[str, ...]]:
    """Check an answer and say on whose cubes it applies."""
    verb = VERBS[action]
    g = current(table, verb, player)
    if player != g.box:
        check(table, player, action, member)
        return g, (player,)
    check(table, player, action, None)
    cube_action = action in (Action.TAKE, Action.DROP, Action.BEAVER)
    mine = tuple(
        m.player
        for m in g.members
        if m.in_game
        and (
            m.pending is not None and m.pending.responder == Side.BOX
            if cube_action
            else m.resignation is not None and m.resignation.by == Side.TEAM
        )
    )
    if member is not None:
        check(table, player, action, member)
    if cube_action and table.options.single:
        # The team doubled (or the box's beaver is answered) as one: the box's answer is
        # for the whole team.
        if not mine:
            raise CubeError(f"{who(table, player)} cannot {verb}: no double is waiting")
        for name in mine:
            check(table, player, action, name)
        return g, mine
    if member is not None:
        return g, (member,)
    error: type[IllegalActionError] = CubeError if cube_action else ResignationError
    what = "double" if cube_action else "resignation offer"
    if not mine:
        raise error(f"{who(table, player)} cannot {verb}: no {what} is waiting for the box")
    if len(mine) > 1:
        raise error(
            f"{who(table, player)} cannot {verb}: name the member ({', '.join(mine)} are waiting)"
        )
    check(table, player, action, mine[0])
    return g, mine

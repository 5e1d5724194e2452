"""Clocks (docs/rules.md §10): each player has a delay per decision and a reserve; the clock of
every player who must act runs, the delay first, then the reserve. Pure, on recorded times.

Every event carries the time it was decided at (``at``, ms since the epoch), so the clocks are
a fold like the rest of the table: after each event, the clocks of the players who no longer
must act (or who just acted) stop and are charged what they used beyond the delay, and the
clocks of those who now must act start at the event's time. A replay shows each clock at any
version; an audit re-decides every ``time_expired`` at its recorded time, so one that came
before the clock ran out is refused.

Who must act: the player on roll (throw, play, double), the player(s) who owe an answer (each
member answering the box's double at once, the box answering a member's double, the receiver
of a resignation offer). The opening throw and a chouette's line throws are the table's, not a
player's decision: **Choice:** while one is due, a clock of the table itself runs (the delay
only, the key ``""``); when it runs out the timer throws them, and nobody forfeits. The seed
window has its own time (the table's ``seed_window``), not the players' clocks: a player who
lets it run out simply adds no seed.

Whose reserve (docs/rules.md §10): a match's reserve lasts the whole match; at a money table or
a chouette every player's reserve is restored as each game starts. The rule is recorded with the
table (:attr:`~events.domain.types.ClockOptions.reserve_per_game`, :func:`with_reserve_rule`), since
the tables created before it kept one reserve for the table's life, and their forfeits on time
must audit as they were decided.

Walking away (docs/rules.md §10): who is connected is the server's to know (presence is not
stored), so an ``expire`` carries it as an input, ``absent``, and what it decides from it is
recorded (``time_expired``'s ``absent``, ``line_rotated``'s). With fewer than two of the
table's players connected, an expiry throws nothing that the table throws by itself
(:func:`too_few_here`), and the server's timer does not send one for it (:func:`for_the_table`).
"""

from __future__ import annotations

from collections.abc import Collection

from msgspec.structs import replace as replace_struct

from engine.frozen import replace
from engine.game import Phase
from events.domain import types as e
from events.domain.table import CommandError, InvalidCommandError, TableState

__all__ = [
    "TABLE",
    "check_reserve_rule",
    "clock_of",
    "connected",
    "deadline_of",
    "due",
    "for_the_table",
    "next_deadline",
    "nothing_ran_out",
    "overdue",
    "remaining",
    "restores_per_game",
    "tick",
    "too_few_here",
    "with_reserve_rule",
]

TABLE = ""
"""The key of the table's own clock (an overdue opening or line throw), in ``clock_running``."""


def clock_of(state: TableState) -> e.ClockOptions | None:
    """The table's clock options, or None when it has no clock."""
    clock = state.options.clock
    return clock if isinstance(clock, e.ClockOptions) else None


def restores_per_game(state: TableState) -> bool:
    """Whether each game at the table starts with every player's whole reserve (money tables
    and chouettes created since the rule; never a match, nor a table created before it)."""
    clock = clock_of(state)
    return clock is not None and bool(clock.reserve_per_game)


def with_reserve_rule(kind: str, options: e.TableOptions) -> e.TableOptions:
    """``options`` with the reserve rule of a new table of ``kind`` filled in, when its clock
    leaves it out: restored at each game at money tables and chouettes, not in a match. The
    server records it so, as it records its other defaults.

    >>> clock = with_reserve_rule("chouette", e.TableOptions(clock=e.ClockOptions())).clock
    >>> clock.reserve_per_game  # type: ignore[union-attr]
    True
    """
    clock = options.clock
    if not isinstance(clock, e.ClockOptions) or clock.reserve_per_game is not None:
        return options
    rule = replace_struct(clock, reserve_per_game=kind != "match")
    return replace_struct(options, clock=rule)


def check_reserve_rule(kind: str, options: e.TableOptions) -> None:
    """Refuse a reserve rule that is not the kind's (None, a table's before the rule, passes).

    :raises InvalidCommandError: ``reserve_per_game`` true in a match, or false elsewhere.
    """
    clock = options.clock
    if not isinstance(clock, e.ClockOptions) or clock.reserve_per_game is None:
        return
    if kind == "match" and clock.reserve_per_game:
        raise InvalidCommandError(
            "a match's reserve lasts the whole match: reserve_per_game must be false or left out"
        )
    if kind != "match" and not clock.reserve_per_game:
        raise InvalidCommandError(
            f"at a {kind} table each player's reserve is restored at the start of each game:"
            " reserve_per_game must be true or left out"
        )


def connected(state: TableState, absent: Collection[str]) -> tuple[str, ...]:
    """The table's players who are connected, given who is ``absent``."""
    return tuple(p for p in state.players if p not in absent)


def too_few_here(state: TableState, absent: Collection[str]) -> CommandError | None:
    """The refusal of an expiry that would have the table throw by itself (a seed window's
    close, an overdue opening or line throw) with fewer than two of its players connected
    (docs/rules.md §10, "Walking away"); None when two or more are."""
    if len(connected(state, absent)) >= 2:
        return None
    return CommandError(
        "fewer than two of the table's players are connected: the table throws nothing by "
        "itself until two are"
    )


def for_the_table(state: TableState, now: int) -> bool:
    """Whether what has run out at ``now`` is the table's own (its seed window, or an overdue
    opening or line throw) rather than a player's clock."""
    if state.window_open:
        return now >= state.seed_deadline
    return TABLE in overdue(state, now)


def _full_reserve(state: TableState, clock: e.ClockOptions) -> int:
    """A player's whole reserve in ms: the reserve plus any per point of the match's length."""
    return (clock.reserve + clock.reserve_per_point * state.options.match_length) * 1000


def due(state: TableState) -> tuple[str, ...]:
    """Who must act now, whose clocks run (:data:`TABLE` for an overdue throw of the table's).
    Nobody once the match has ended: no clock runs on a finished table (docs/rules.md §10),
    not even over a game a server before issue 27 left open there."""
    if not state.in_game or state.window_open or state.match_winner:
        return ()
    if state.kind == "chouette":
        ch = state.chouette
        if ch is None:
            return ()
        if ch.ordering is not None:
            return (TABLE,)  # the line is thrown for next
        g = ch.game
        if g is None or not ch.in_progress:
            return ()
        if g.phase is Phase.OPENING:
            return (TABLE,)
        waiting = ch.waiting_for()
        if waiting:
            return tuple(waiting)
        return (ch.on_roll,) if ch.on_roll else ()
    game = state.game
    if game is None or game.is_over:
        return ()
    if game.phase is Phase.OPENING:
        return (TABLE,)
    seat = game.to_act
    player = state.seats[seat] if seat is not None else None
    return (player,) if player else ()


def tick(before: TableState, after: TableState, event: e.Event) -> TableState:
    """The clocks after ``event`` (folded into ``after`` from ``before``): stop and charge the
    clocks of who no longer must act or just acted, start those of who now must."""
    clock = clock_of(after)
    if clock is None:
        return after
    now = event.at
    delay = clock.delay * 1000
    actor = getattr(event, "player", None)
    now_due = due(after)
    # Whose reserve: a new game at a money table or a chouette gives everyone their whole
    # reserve again (nobody has an entry: each counts from the whole reserve).
    fresh = isinstance(event, e.GameStarted) and restores_per_game(after)
    reserve = {} if fresh else dict(before.clock_reserve)
    running: dict[str, int] = {}
    for player, since in before.clock_running:
        if player in now_due and player != actor:
            running[player] = since  # still thinking: the clock keeps running
        elif player != TABLE:
            used = max(0, now - since - delay)
            left = reserve.get(player, _full_reserve(after, clock))
            reserve[player] = max(0, left - used)
    for player in now_due:
        if player not in running:
            running[player] = now
            if player != TABLE:
                reserve.setdefault(player, _full_reserve(after, clock))
    if tuple(running.items()) == before.clock_running and tuple(reserve.items()) == (
        before.clock_reserve
    ):
        return after
    return replace(
        after, clock_running=tuple(running.items()), clock_reserve=tuple(reserve.items())
    )


def reserve_of(state: TableState, player: str) -> int:
    """``player``'s reserve in ms as of their clock's last stop (their whole reserve if unused)."""
    clock = clock_of(state)
    if clock is None:
        return 0
    return dict(state.clock_reserve).get(player, _full_reserve(state, clock))


def deadline_of(state: TableState, player: str) -> int | None:
    """When ``player``'s running clock runs out (ms since the epoch), or None if it is not
    running."""
    clock = clock_of(state)
    since = dict(state.clock_running).get(player)
    if clock is None or since is None:
        return None
    extra = 0 if player == TABLE else reserve_of(state, player)
    return since + clock.delay * 1000 + extra


def remaining(state: TableState, player: str, now: int) -> tuple[int, int]:
    """``player``'s (delay, reserve) left at ``now``, in ms: the delay only while their clock
    runs (0 otherwise)."""
    clock = clock_of(state)
    if clock is None:
        return 0, 0
    reserve = reserve_of(state, player) if player != TABLE else 0
    since = dict(state.clock_running).get(player)
    if since is None:
        return 0, reserve
    elapsed = max(0, now - since)
    delay = clock.delay * 1000
    return max(0, delay - elapsed), max(0, reserve - max(0, elapsed - delay))


def overdue(state: TableState, now: int) -> tuple[str, ...]:
    """Whose running clocks have run out at ``now`` (:data:`TABLE` included)."""
    out = []
    for player, _ in state.clock_running:
        deadline = deadline_of(state, player)
        if deadline is not None and now >= deadline:
            out.append(player)
    return tuple(out)


def next_deadline(state: TableState) -> int | None:
    """The earliest time something at the table runs out: the seed window, or a running
    clock (ms since the epoch); None when nothing is running, and always between games and
    once the match has ended (nothing can run out on a finished table). The timer service
    wakes then."""
    if not state.in_game or state.match_winner:
        return None
    times = [deadline_of(state, p) for p, _ in state.clock_running]
    if state.window_open:
        times.append(state.seed_deadline)
    found = [t for t in times if t is not None]
    return min(found) if found else None


def nothing_ran_out(state: TableState, now: int) -> CommandError:
    """The refusal of an ``expire`` that comes before anything has run out."""
    deadline = next_deadline(state)
    if deadline is None:
        return CommandError("no clock is running at this table")
    left = (deadline - now + 999) // 1000
    return CommandError(f"nothing has run out yet: the next clock runs out in {left} s")

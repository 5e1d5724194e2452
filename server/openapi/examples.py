"""Examples of the API's requests, for the OpenAPI document (:mod:`server.openapi.document`); each
decodes with the request type it illustrates (``tests/server/operations/test_api_reference.py``
checks it)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ACCOUNT_EXAMPLES",
    "BOB",
    "CAT",
    "COMMAND_EXAMPLES",
    "CREATE_EXAMPLES",
    "ERASE_EXAMPLES",
    "GUEST_EXAMPLES",
    "KEEP_GUEST_EXAMPLES",
    "LOGIN_EXAMPLES",
    "MARK_BOT_EXAMPLES",
    "TABLE_ID",
]

BOB = "u_0b9e8d7c6f5a4b3c2d1e0f9a8b7c6d5e"
CAT = "g_7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d"
"""Account ids of the examples' team members: Bob, and Cat (a guest)."""

TABLE_ID = "6f0d3b8e-2c41-5a9e-b7d2-93c1e4f5a6b7"


def _example(summary: str, value: Any, description: str = "") -> dict[str, Any]:
    example: dict[str, Any] = {"summary": summary, "value": value}
    if description:
        example["description"] = description
    return example


def _command(summary: str, command: dict[str, Any], description: str = "") -> dict[str, Any]:
    return _example(
        summary,
        {"command_id": "3f2b7c9a-8d41-4e6b-a5c0-1d2e3f4a5b6c", "command": command},
        description,
    )


CREATE_EXAMPLES = {
    "chouette": _example(
        "A chouette",
        {
            "kind": "chouette",
            "name": "Thursday chouette",
            "options": {"cube_mode": "multiple", "consultation": "after_cube", "max_players": 6},
        },
        "Multiple cubes; a member may advise the captain once their own cube is turned.",
    ),
    "money": _example(
        "A money table",
        {"kind": "money", "options": {"jacoby": True, "beavers": True, "auto_doubles": 1}},
    ),
    "match": _example(
        "A 7-point match",
        {
            "command_id": "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
            "kind": "match",
            "options": {"match_length": 7},
        },
        "With a `command_id`, a retry creates nothing new: it answers 200 with the same table.",
    ),
    "clocks": _example(
        "A timed match, with a longer seed window",
        {
            "kind": "match",
            "options": {
                "match_length": 5,
                "clock": {"delay": 8, "reserve": 60, "reserve_per_point": 30},
                "seed_window": 10,
            },
        },
        "Each decision has 8 s, then the player's reserve (60 s + 30 s a point) runs; a player"
        ' out of time forfeits the match. `"clock": "off"` turns the clocks off; without'
        " `clock` the server's default applies (12 s + 2 min, +20 s a point in a match).",
    ),
}
"""Examples of ``POST /tables`` (each decodes as
:class:`server.http.handlers.CreateTableRequest`)."""

COMMAND_EXAMPLES = {
    "join": _command("Join (sit, or join the chouette's line)", {"type": "join"}),
    "join_seat": _command("Join in seat 1", {"type": "join", "seat": 1}),
    "start_game": _command(
        "Start a chouette's first game",
        {"type": "start_game"},
        "Any member, once two or more have joined. The game's seed window opens; once it"
        " closes the server throws for the line (a member's `roll` does it if the window ran"
        " out), then the box or the captain sends `roll` for the opening throw.",
    ),
    "add_seed": _command(
        "Mix a seed of your own into this game's dice",
        {"type": "add_seed", "seed": "c0ffee5eed"},
        "Up to 128 characters, in the game's seed window (the table view's `seed_window`): the"
        " dice then depend on a seed the server could not choose. No die is thrown before every"
        " player has added a seed or waived, or the window's time (`seed_window`) runs out.",
    ),
    "expire": _command(
        "Claim that a clock has run out",
        {"type": "expire"},
        "The server's timer sends it when a clock runs out; anyone may. Decided at the server's"
        " time: a player out of time forfeits (and, if not connected to the table, leaves it when"
        " the game ends), an expired seed window closes, an overdue opening or line throw is"
        " thrown (these two only with two of the table's players connected). Refused (409)"
        " unless something truly ran out. The server fills in `absent` (who is not connected);"
        " a client may not (400).",
    ),
    "waive_seed": _command(
        "Add no seed to this game's dice",
        {"type": "waive_seed"},
        "So that the seed window need not wait for you.",
    ),
    "roll": _command(
        "Roll (also the opening throw)",
        {"type": "roll"},
        "The server throws the dice. Before a game's first turn `roll` is the opening throw: one"
        " die each, thrown again on a tie; the higher die moves first with both dice.",
    ),
    "move": _command(
        "Move, in notation",
        {"type": "move", "notation": "13/7 8/7"},
        "From the mover's side: the bar is 25 (`bar/22`), borne off is 0 (`6/off`), `*` marks"
        " a hit, `(2)` a repeated move.",
    ),
    "move_pairs": _command(
        "Move, as [from, to] pairs", {"type": "move", "moves": [[13, 7], [8, 7]]}
    ),
    "double": _command("Double (money or match)", {"type": "double"}),
    "double_cubes": _command(
        "The box doubles two members' cubes",
        {"type": "double", "cubes": [BOB, CAT]},
        "`cubes` holds account ids of team members; empty doubles every cube the box may turn."
        " A member doubles their own cube with no `cubes`.",
    ),
    "take": _command("Take (money, match, or a member answering the box)", {"type": "take"}),
    "take_cube": _command(
        "The box takes a member's double",
        {"type": "take", "cube": BOB},
        "`cube` is the account id of the member whose cube the box answers for.",
    ),
    "drop": _command("Drop", {"type": "drop"}),
    "beaver": _command("Beaver (take and redouble at once)", {"type": "beaver"}),
    "resign": _command(
        "The box offers a gammon to one member",
        {"type": "resign", "level": 2, "to": [CAT]},
        "`level` 1 single, 2 gammon, 3 backgammon; `to` holds member account ids (empty: every"
        " member who can be offered one).",
    ),
    "accept": _command("Accept a resignation", {"type": "accept"}),
    "decline_cube": _command(
        "The box declines a member's resignation", {"type": "decline", "cube": BOB}
    ),
    "chat_team": _command(
        "Advise the captain on the team channel",
        {"type": "chat", "channel": "team", "text": "Double now: they have two blots."},
        "The box never reads the team channel. Chat is recorded in the table's chat stream.",
    ),
    "leave": _command(
        "Leave the table",
        {"type": "leave"},
        "Free between games; in mid-game it forfeits (docs/rules.md §10), and the table view's"
        " `leave_cost` says what it costs the viewer now.",
    ),
}
"""Examples of ``POST /tables/{table_id}/commands`` (each decodes as
:class:`server.http.common.CommandEnvelope`)."""

ACCOUNT_EXAMPLES = {
    "register": _example(
        "Register",
        {"username": "ann", "password": "correct horse battery", "display_name": "Ann"},
    )
}
LOGIN_EXAMPLES = {
    "login": _example("Log in", {"username": "ann", "password": "correct horse battery"})
}
GUEST_EXAMPLES = {"guest": _example("A guest called Cat", {"display_name": "Cat"})}
ERASE_EXAMPLES = {
    "registered": _example(
        "Bob erases his account",
        {"password": "correct horse battery"},
        "From now on Bob's name and chat read as `former player 6a1c` and `[erased]`.",
    ),
    "guest": _example("A guest erases itself (with a fresh token)", {}),
}

MARK_BOT_EXAMPLES = {
    "mark": _example(
        "Bob makes his new account a bot account",
        {"password": "correct horse battery"},
        "Bob registered `bobs-engine` for his program; from now on it sits down as a bot.",
    )
}

KEEP_GUEST_EXAMPLES = {
    "keep": _example(
        "Cat keeps her guest account",
        {"username": "cat", "password": "correct horse battery"},
        "Cat played as a guest; from now on she logs in as `cat`, with the same account id.",
    )
}

"""The box sees every member's cube on its board, each with its value at its owner's end (and
the replay draws them too); and the box's choice of cubes to double is for one turn only: a
cube left out once is offered, ticked, the next time (never a disabled "Double 0 cubes")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, enter

THROWS = [(6, 4, 2), (3, 1), (5, 2), (6, 4), (2, 1)]
"""The line (Ann 6, Bob 4, Cat 2: Ann the box, Bob the captain), the opening (the box 3, the
captain 1), Bob's 52, Ann's 64 (she hits), Bob's 21 from the bar; seeded dice after."""


def expect_cube(cube: Locator, value: int, owner: str, side: str) -> None:
    """A member's cube on the board: its value written on it (a centred cube of 1 shows 64, as
    a real cube does), its owner, the end it is at."""
    expect(cube).to_have_attribute("data-value", str(value))
    shown = "64" if (value, side) == (1, "centre") else str(value)
    expect(cube.locator("text.value")).to_have_text(shown)
    expect(cube).to_have_attribute("data-owner", owner)
    expect(cube).to_have_attribute("data-side", side)


def play_any(server: LiveServer, player: Player, table: str) -> None:
    """The player throws and makes the first legal play the server lists."""
    server.run(server.api.ok(player.user, table, "roll"))
    view = player.view(server, table)
    if view["game"]["phase"] == "move":
        notation = view["game"]["legal_plays"][0]["notation"]
        server.run(server.api.ok(player.user, table, "move", notation=notation))


def test_the_box_sees_each_member_s_cube_and_its_choice_is_for_one_turn(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice(THROWS)
    server = make_live_server(dice_factory=lambda table: dice)
    api = server.api
    ann = enter(new_page(base_url=server.url), server, "Ann")
    bob, cat = (enter(new_page(base_url=server.url), server, n) for n in ("Bob", "Cat"))
    table = server.run(api.create_table(ann.user, "chouette"))
    for p in (ann, bob, cat):
        server.run(api.ok(p.user, table, "join"))
    server.run(api.ok(bob.user, table, "start_game"))
    server.run(api.ok(bob.user, table, "roll"))
    server.run(api.ok(ann.user, table, "move", notation="8/5 6/5"))
    server.run(api.ok(bob.user, table, "roll"))
    server.run(api.ok(bob.user, table, "move", notation="13/11 13/8"))
    bob_cube = ann.test_id(f"board-cube-{bob.account_id}")
    cat_cube = ann.test_id(f"board-cube-{cat.account_id}")

    # The box's turn: both cubes centred on its board. It leaves Cat's out and doubles Bob's.
    ann.open_table(table)
    ann.expect_status("Waiting for Ann to roll or double")
    expect_cube(bob_cube, 1, "", "centre")
    expect_cube(cat_cube, 1, "", "centre")
    expect(cat_cube).to_contain_text("Cat")
    expect(ann.test_id("cmd-double")).to_have_text("Double every cube")
    ann.test_id(f"double-target-{cat.account_id}").uncheck()
    expect(ann.test_id("cmd-double")).to_have_text("Double Bob's cube")
    ann.test_id(f"double-target-{bob.account_id}").uncheck()
    expect(ann.test_id("cmd-double")).to_have_count(0)  # nothing ticked: nothing to send
    expect(ann.test_id("double-none")).to_be_visible()
    ann.test_id(f"double-target-{bob.account_id}").check()
    ann.click("cmd-double")
    expect_cube(bob_cube, 2, "", "centre")  # offered at 2
    expect(bob_cube).to_have_class("cube mini offered")
    server.run(api.ok(bob.user, table, "take"))
    expect_cube(bob_cube, 2, bob.account_id, "opponent")  # Bob's now, at the team's end
    expect_cube(cat_cube, 1, "", "centre")

    # The box hits; Bob comes in. At the box's next turn Cat's cube is offered again, ticked.
    server.run(api.ok(ann.user, table, "roll"))
    server.run(api.ok(ann.user, table, "move", notation="24/14*"))
    server.run(api.ok(bob.user, table, "roll"))
    server.run(api.ok(bob.user, table, "move", notation="bar/22"))
    ann.expect_status("Waiting for Ann to roll or double")
    expect(ann.test_id(f"double-target-{cat.account_id}")).to_be_checked()
    expect(ann.test_id("cmd-double")).to_have_text("Double Cat's cube")
    expect(ann.test_id("cmd-double")).to_be_enabled()
    expect(ann.page.get_by_text("0 cubes")).to_have_count(0)
    ann.click("cmd-double")
    expect_cube(cat_cube, 2, "", "centre")  # offered: the double has landed before Cat takes
    server.run(api.ok(cat.user, table, "take"))
    expect_cube(cat_cube, 2, cat.account_id, "opponent")

    # The box plays on; Bob redoubles his cube and the box takes it: 4, the box's.
    ann.expect_status("Waiting for Ann to roll")
    play_any(server, ann, table)
    bob.open_table(table)
    bob.expect_status("Waiting for Bob to roll or double")
    server.run(api.ok(bob.user, table, "double"))
    ann.click(f"cmd-take-{bob.account_id}")
    expect_cube(bob_cube, 4, ann.account_id, "viewer")  # at the box's own end
    expect_cube(cat_cube, 2, cat.account_id, "opponent")
    expect(bob_cube).to_contain_text("Bob")
    # A member sees their own cube only, the one big cube of the board.
    expect(bob.test_id("board-cube")).to_contain_text("4")
    expect(bob.test_id(f"board-cube-{cat.account_id}")).to_have_count(0)
    screenshot(ann.page, "box-sees-every-cube")

    # The replay draws the chouette's cubes too, from the team's side.
    viewer = new_page(base_url=server.url)
    viewer.goto(f"/#/replay/{table}")
    expect(viewer.get_by_test_id("replay-at")).to_contain_text("Version")
    on_replay = viewer.get_by_test_id
    expect_cube(on_replay(f"board-cube-{bob.account_id}"), 4, ann.account_id, "opponent")
    expect_cube(on_replay(f"board-cube-{cat.account_id}"), 2, cat.account_id, "viewer")
    screenshot(viewer, "replay-draws-the-cubes")

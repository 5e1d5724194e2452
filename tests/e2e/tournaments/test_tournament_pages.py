"""The tournaments' pages (issue 32, item 5), in a real browser against a live server: a knockout
of four created through the page, entered and started there, its matches finished at their
tables through the API (an opening throw, then the loser leaves: a forfeit), and the bracket
drawn as it goes — each round's winners marked and carried into the next round's box, links
into the live tables, the champion; a Swiss's standings after a round (points and the
tie-breaks the API gives, the bye) and the director's adjustment of a result with its reason;
the create form's readable refusals; and every control of these pages named, nothing running
past a phone's width or a laptop's."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.harness import LiveServer
from tests.e2e.layout.layout_checks import page_options, sideways_overflow
from tests.e2e.pages import Player, enter, expect_all_named, keep_session
from tests.e2e.people.test_social_pages import enter_registered
from tests.server.conftest import User
from tests.server.tournaments.helpers import create, forfeit, until, view


def tournament_id_of(page: Page) -> str:
    match = re.search(r"#/tournament/([0-9a-f-]{36})$", page.url)
    assert match, page.url
    return match.group(1)


def match_box(player: Player, round_: int, board: int) -> Locator:
    return player.page.locator(
        f"[data-testid='bracket-match'][data-round='{round_}'][data-board='{board}']"
    )


def expect_players(box: Locator, players: list[str]) -> None:
    """The box shows these two players (account ids), in order."""
    slots = box.get_by_test_id("bracket-player")
    expect(slots).to_have_count(2)
    for i, p in enumerate(players):
        expect(slots.nth(i)).to_have_attribute("data-player", p)


def start(server: LiveServer, tid: str, director: User) -> None:
    r = server.run(server.api.request("POST", f"/tournaments/{tid}/start", user=director))
    assert r.status == 200, r.body


def enter_all(server: LiveServer, tid: str, users: list[User]) -> None:
    for u in users:
        r = server.run(server.api.request("POST", f"/tournaments/{tid}/entries", user=u, json={}))
        assert r.status == 200, r.body


def test_a_knockout_of_four_drawn_from_the_start_to_its_champion(
    live_server: LiveServer,
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    server, api = live_server, live_server.api
    ann = enter_registered(new_page(base_url=server.url), server)
    others = [server.run(api.register()) for _ in range(3)]
    users = {u.account_id: u for u in [ann.user, *others]}

    # Created from the page, from the lobby's link.
    ann.page.goto("/#/lobby")
    ann.click("tournaments-link")
    ann.test_id("tournament-name").fill("Spring cup")
    ann.test_id("tournament-format").select_option("knockout")
    ann.test_id("tournament-length").fill("1")
    ann.click("tournament-submit")
    expect(ann.page).to_have_url(re.compile(r"#/tournament/"))
    tid = tournament_id_of(ann.page)
    expect(ann.test_id("tournament-title")).to_have_text("Spring cup")
    expect(ann.test_id("tournament-settings")).to_contain_text("Knockout, 1-point matches")
    expect(ann.test_id("tournament-state")).to_have_text("Entering")
    assert server.run(view(api, tid))["director"] == ann.account_id

    # She enters on the page; three others through the API, which the page follows.
    ann.click("tournament-enter")
    expect(ann.test_id("tournament-withdraw")).to_be_visible()
    expect(ann.test_id("tournament-enter")).to_have_count(0)
    enter_all(server, tid, others)
    expect(ann.test_id("tournament-entrant")).to_have_count(4)
    # Seeded 1 to 4 (equal ratings: by entry), 1 v 4 and 2 v 3; the final still open.
    seeds = [ann.account_id, *(u.account_id for u in others)]
    expect_players(match_box(ann, 1, 1), [seeds[0], seeds[3]])
    expect_players(match_box(ann, 1, 2), [seeds[1], seeds[2]])
    expect(match_box(ann, 2, 1)).to_contain_text("to be decided")
    expect(ann.page.locator(".bracket-round")).to_have_text(["Semi-finals", "Final"])

    ann.click("tournament-start")
    expect(ann.test_id("tournament-state")).to_have_text("Playing")
    expect(ann.test_id("tournament-start")).to_have_count(0)
    # The page follows the tournament's live stream where the server has one, else it polls.
    assert api.app is not None
    routes = {r.resource.canonical for r in api.app.router.routes() if r.resource is not None}
    following = "stream" if "/tournaments/{tournament_id}/events" in routes else "poll"
    expect(ann.test_id("tournament-status")).to_have_attribute("data-following", following)
    v = server.run(until(api, tid, lambda v: len(v["rounds"]) == 1))
    first = v["rounds"][0]["boards"]
    for n, board in enumerate(first, 1):
        link = match_box(ann, 1, n).get_by_test_id("bracket-table")
        expect(link).to_have_attribute("href", f"#/table/{board['table_id']}")
        expect(link).to_have_accessible_name(
            re.compile(r"^Table of Semi-finals, match \d: .+ v .+$")
        )
    screenshot(ann.page, "knockout-round-1")

    # Round 1: the fourth seed beats ann (she leaves her table), the second seed wins.
    server.run(forfeit(api, first[0]["table_id"], users, loser=seeds[0]))
    server.run(forfeit(api, first[1]["table_id"], users, loser=seeds[2]))
    expect(match_box(ann, 1, 1)).to_have_attribute("data-winner", seeds[3])
    expect(match_box(ann, 1, 2)).to_have_attribute("data-winner", seeds[1])
    won = match_box(ann, 1, 1).locator("[data-won='true']")
    expect(won).to_have_attribute("data-player", seeds[3])
    expect(won).to_have_class(re.compile(r"\bwon\b"))
    # The winners advance into the final's box (the higher seed first), with its table.
    expect_players(match_box(ann, 2, 1), [seeds[1], seeds[3]])
    final = server.run(until(api, tid, lambda v: len(v["rounds"]) == 2))["rounds"][1]["boards"][0]
    expect(match_box(ann, 2, 1).get_by_test_id("bracket-table")).to_have_attribute(
        "href", f"#/table/{final['table_id']}"
    )
    expect(ann.test_id("tournament-winner")).to_be_hidden()
    # The director may adjust only the round the next is not yet paired from: the final.
    expect(ann.test_id("adjust-round").locator("option")).to_have_text(["Round 2"])
    expect(ann.test_id("round").nth(0).get_by_test_id("board-result")).to_have_text(
        [re.compile(r"won \(a forfeit at the table\)$")] * 2
    )

    # The final: the fourth seed wins the tournament.
    server.run(forfeit(api, final["table_id"], users, loser=seeds[1]))
    expect(ann.test_id("tournament-state")).to_have_text("Finished")
    expect(match_box(ann, 2, 1)).to_have_attribute("data-winner", seeds[3])
    names = {e["player"]: e["name"] for e in server.run(view(api, tid))["entrants"]}
    expect(ann.test_id("tournament-winner")).to_have_text(f"Winner: {names[seeds[3]]}")
    expect(ann.test_id("tournament-status")).to_have_text("The tournament is over.")
    expect(ann.test_id("tournament-withdraw")).to_have_count(0)
    screenshot(ann.page, "knockout-finished")

    # The list says so; a box's link opens its live table.
    ann.click("tournaments-back")
    row = ann.page.locator(f"[data-testid='tournament-row'][data-tournament-id='{tid}']")
    expect(row).to_contain_text("Spring cupKnockoutFinished42")
    row.get_by_test_id("tournament-open").click()
    match_box(ann, 2, 1).get_by_test_id("bracket-table").click()
    expect(ann.page).to_have_url(re.compile(f"#/table/{final['table_id']}$"))
    expect(ann.test_id("table-title")).to_be_visible()
    # And the table links back to its place in the tournament.
    back = ann.test_id("tournament-link")
    expect(back).to_have_accessible_name("Tournament: round 2, board 1")
    back.click()
    expect(ann.page).to_have_url(re.compile(f"#/tournament/{tid}$"))
    expect(ann.test_id("tournament-title")).to_have_text("Spring cup")


def standings_rows(player: Player) -> list[list[str]]:
    rows: list[list[str]] = player.page.locator("[data-testid='standing']").evaluate_all(
        "rows => rows.map(r => [r.dataset.player,"
        " ...[...r.querySelectorAll('td[data-key]')].map(td => td.textContent)])"
    )
    return rows


def api_standings(v: dict[str, Any]) -> list[list[str]]:
    keys = ("rank", "points", "played", "won", "buchholz", "sonneborn_berger")
    return [[s["player"], *(str(s[k]) for k in keys)] for s in v["standings"]]


def test_a_swiss_standings_after_a_round_and_an_adjusted_result(
    live_server: LiveServer,
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    server, api = live_server, live_server.api
    director = enter_registered(new_page(base_url=server.url), server)
    players = [server.run(api.register()) for _ in range(5)]
    users = {u.account_id: u for u in players}
    tid = server.run(create(api, director.user, format="swiss", rounds=2, match_length=1))
    enter_all(server, tid, players)
    director.page.goto(f"/#/tournament/{tid}")
    expect(director.test_id("tournament-entrant")).to_have_count(5)
    expect(director.test_id("tournament-enter")).to_be_visible()  # (she may play too)
    director.click("tournament-start")
    expect(director.test_id("tournament-state")).to_have_text("Playing")
    expect(director.page.locator("[data-testid='standings'] th")).to_have_text(
        ["#", "Player", "Points", "Played", "Won", "Buchholz", "Sonneborn-Berger"]
    )

    # Round 1: two boards and a bye (to the lowest seed); each board's b loses by forfeit.
    v = server.run(until(api, tid, lambda v: len(v["rounds"]) == 1))
    boards = v["rounds"][0]["boards"]
    to_play = [b for b in boards if b["b"] is not None]
    assert len(to_play) == 2 and boards[-1]["b"] is None
    for b in to_play:
        server.run(forfeit(api, b["table_id"], users, loser=b["b"]))
    v = server.run(until(api, tid, lambda v: len(v["rounds"]) == 2))
    expect(director.test_id("round")).to_have_count(2)
    assert standings_rows(director) == api_standings(v)
    # Four on a point (two winners and round 1's bye, and round 2's bye, already decided),
    # ranked apart by the tie-breaks.
    assert [s["points"] for s in v["standings"]] == [1, 1, 1, 1, 0], v["standings"]
    assert any(s["buchholz"] for s in v["standings"][:4]), v["standings"]
    names = {e["player"]: e["name"] for e in v["entrants"]}
    first = director.test_id("round").nth(0)
    expect(first.get_by_test_id("board-result")).to_have_text(
        [
            f"{names[to_play[0]['a']]} won (a forfeit at the table)",
            f"{names[to_play[1]['a']]} won (a forfeit at the table)",
            f"{names[boards[-1]['a']]} has a bye",
        ]
    )
    second = director.test_id("round").nth(1)
    expect(second).to_contain_text("Round 2 (playing)")
    for n, b in enumerate(v["rounds"][1]["boards"]):
        if b["table_id"]:
            expect(
                second.get_by_test_id("board").nth(n).get_by_test_id("board-table")
            ).to_have_attribute("href", f"#/table/{b['table_id']}")
    screenshot(director.page, "swiss-after-round-1")

    # The director turns round 1's board 1 around, for a reason everyone then reads.
    form = director.test_id("adjust-form")
    expect(form).to_be_visible()
    director.test_id("adjust-round").select_option("1")
    director.test_id("adjust-board").select_option("1")
    director.test_id("adjust-winner").select_option(to_play[0]["b"])
    director.test_id("adjust-reason").fill("The wrong player left the table")
    director.click("adjust-submit")
    expect(first.get_by_test_id("board-result").nth(0)).to_have_text(
        f"{names[to_play[0]['b']]} won (adjusted by the director: The wrong player left the table)"
    )
    v = server.run(view(api, tid))
    assert v["rounds"][0]["boards"][0]["winner"] == to_play[0]["b"]
    assert standings_rows(director) == api_standings(v)

    # Another player's page has no director's form and no Start; they may withdraw.
    them = new_page(base_url=server.url)
    p = players[0]
    keep_session(
        them,
        {
            "token": p.token,
            "account_id": p.account_id,
            "username": p.username,
            "display_name": p.display_name,
            "guest": False,
        },
    )
    them.goto(f"/#/tournament/{tid}")
    # The director, who has not entered, is named (GET /tournaments/{id}'s director_name).
    named = server.run(view(api, tid))["director_name"]
    assert named.lower() == director.user.display_name.lower(), named
    expect(them.get_by_test_id("tournament-director")).to_have_text(named)
    expect(them.get_by_test_id("tournament-withdraw")).to_be_visible()
    expect(them.get_by_test_id("adjust-form")).to_be_hidden()
    expect(them.get_by_test_id("tournament-start")).to_have_count(0)

    # Round 2 played: the tournament ends with the standings' leader as its winner.
    for b in v["rounds"][1]["boards"]:
        if b["b"] is not None:
            server.run(forfeit(api, b["table_id"], users, loser=b["a"]))
    expect(director.test_id("tournament-state")).to_have_text("Finished")
    v = server.run(view(api, tid))
    assert v["winner"] == v["standings"][0]["player"]
    expect(director.test_id("tournament-winner")).to_have_text(f"Winner: {names[v['winner']]}")
    expect(director.test_id("adjust-form")).to_be_hidden()  # (nothing after the end)
    assert standings_rows(director) == api_standings(v)
    assert [r[1] for r in standings_rows(director)] == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_tournament_pages_fit_and_name_every_control(
    size: str,
    live_server: LiveServer,
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    server, api = live_server, live_server.api
    ann = enter_registered(new_page(base_url=server.url, **page_options(size)), server)

    def fits(what: str) -> None:
        assert sideways_overflow(ann) == [], f"{what} at {size}"

    # The list and the create form, each format's and option's fields shown.
    ann.page.goto("/#/tournaments")
    expect(ann.test_id("tournaments-status")).to_contain_text("tournaments")
    for fmt in ("knockout", "swiss", "round_robin"):
        ann.test_id("tournament-format").select_option(fmt)
        expect_all_named(ann.page, at_least=12)
    ann.test_id("tournament-clock").select_option("custom")
    ann.test_id("tournament-private").check()
    expect(ann.test_id("tournament-invited")).to_be_visible()
    expect_all_named(ann.page, at_least=16)
    fits("the tournaments and the create form")
    screenshot(ann.page, f"create-form-{size}")

    # The server's refusals, readable: a round robin of more than 32, an unknown invitee.
    ann.test_id("tournament-max-field").fill("64")
    ann.test_id("tournament-invited").fill("nobody_by_this_name")
    ann.click("tournament-submit")
    expect(ann.test_id("tournament-create-error")).to_have_text(
        "There is no player named nobody_by_this_name."
    )
    ann.test_id("tournament-private").uncheck()
    ann.click("tournament-submit")
    expect(ann.test_id("tournament-create-error")).to_contain_text("32")
    expect(ann.page).to_have_url(re.compile(r"#/tournaments$"))
    assert server.run(api.request("GET", "/tournaments")).body["tournaments"] == []

    # A knockout of eight in its first round, long names and all, as its director sees it.
    players = [server.run(api.register(f"player_with_a_long_name_{i}")) for i in range(8)]
    users = {u.account_id: u for u in players}
    knockout = server.run(create(api, ann.user, format="knockout", match_length=1))
    enter_all(server, knockout, players)
    start(server, knockout, ann.user)
    v = server.run(until(api, knockout, lambda v: len(v["rounds"]) == 1))
    b = v["rounds"][0]["boards"][0]
    server.run(forfeit(api, b["table_id"], users, loser=b["b"]))
    ann.page.goto(f"/#/tournament/{knockout}")
    expect(match_box(ann, 1, 1)).to_have_attribute("data-winner", b["a"])
    expect(ann.test_id("adjust-form")).to_be_visible()
    expect_all_named(ann.page, at_least=20)
    fits("a knockout's bracket")
    screenshot(ann.page, f"bracket-{size}")

    # A Swiss's standings, as a guest watching sees them.
    swiss = server.run(create(api, ann.user, format="swiss", rounds=3, match_length=1))
    enter_all(server, swiss, players[:5])
    start(server, swiss, ann.user)
    guest = enter(new_page(base_url=server.url, **page_options(size)), server, "Gus")
    guest.page.goto(f"/#/tournament/{swiss}")
    expect(guest.test_id("standing")).to_have_count(5)
    expect(guest.test_id("tournament-enter")).to_have_count(0)  # (entries closed)
    expect_all_named(guest.page, at_least=10)
    assert sideways_overflow(guest) == [], f"a Swiss's standings at {size}"
    # A rated one still entering: a guest is told to register; a stranger to get in first.
    rated = server.run(create(api, ann.user, format="knockout", rated=True))
    guest.page.goto(f"/#/tournament/{rated}")
    expect(guest.test_id("tournament-actions")).to_have_text(
        "A rated tournament: register to enter."
    )
    stranger = Player(new_page(base_url=server.url, **page_options(size)), "a stranger", "", "")
    stranger.page.goto(f"/#/tournament/{rated}")
    expect(stranger.test_id("tournament-get-in")).to_have_attribute("href", "#/lobby")
    expect_all_named(stranger.page, at_least=3)
    assert sideways_overflow(stranger) == [], f"a tournament signed out, at {size}"
    guest.page.goto("/#/tournaments")
    expect(guest.test_id("tournaments-register")).to_contain_text("Register")
    expect(guest.test_id("tournament-row")).to_have_count(3)
    assert sideways_overflow(guest) == [], f"the list, for a guest, at {size}"


def test_a_private_tournament_is_seen_by_those_it_invites(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server, api = live_server, live_server.api
    ann = enter_registered(new_page(base_url=server.url), server)
    bob = enter_registered(new_page(base_url=server.url), server)
    cat = enter_registered(new_page(base_url=server.url), server)
    ann.page.goto("/#/tournaments")
    ann.test_id("tournament-name").fill("Members only")
    ann.test_id("tournament-format").select_option("round_robin")
    ann.test_id("tournament-private").check()
    ann.test_id("tournament-invited").fill(f"{bob.name}, {bob.name}")
    ann.test_id("tournament-clock").select_option("custom")
    ann.test_id("tournament-delay").fill("5")
    ann.test_id("tournament-reserve").fill("90")
    ann.click("tournament-submit")
    expect(ann.page).to_have_url(re.compile(r"#/tournament/"))
    tid = tournament_id_of(ann.page)
    expect(ann.test_id("tournament-settings")).to_have_text(
        "Round robin, 3-point matches, not rated, private, clock 5 s a move + 90 s,"
        " a no-show after 600 s"
    )
    options = server.run(view(api, tid, ann.user))["options"]
    assert (options["private"], options["invited"]) == (True, [bob.account_id])

    # Bob, invited, finds it in his list and enters; Cat is told there is no such tournament.
    bob.page.goto("/#/tournaments")
    row = bob.page.locator(f"[data-testid='tournament-row'][data-tournament-id='{tid}']")
    expect(row).to_contain_text("Members onlyRound robinEntering")
    row.get_by_test_id("tournament-open").click()
    bob.click("tournament-enter")
    expect(bob.test_id("tournament-entrant")).to_have_count(1)
    expect(bob.test_id("tournament-withdraw")).to_be_visible()
    cat.page.goto("/#/tournaments")
    expect(cat.test_id("tournaments-status")).to_have_text("0 tournaments.")
    cat.page.goto(f"/#/tournament/{tid}")
    expect(cat.test_id("tournament-error")).to_be_visible()
    expect(cat.test_id("tournament-enter")).to_have_count(0)

    # Bob withdraws again on the page.
    bob.click("tournament-withdraw")
    expect(bob.test_id("tournament-entrant")).to_have_text(re.compile(r"withdrawn$"))
    expect(bob.test_id("tournament-withdraw")).to_have_count(0)


def test_byes_and_the_third_place_match_in_the_bracket(
    live_server: LiveServer,
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    server, api = live_server, live_server.api
    ann = enter_registered(new_page(base_url=server.url), server)
    players = [server.run(api.register()) for _ in range(4)]
    users = {u.account_id: u for u in players}

    # Three players: a bracket of four, the top seed's bye decided at once, no table.
    three = server.run(create(api, ann.user, format="knockout", match_length=1))
    enter_all(server, three, players[:3])
    start(server, three, ann.user)
    ann.page.goto(f"/#/tournament/{three}")
    bye = match_box(ann, 1, 1)
    expect(bye).to_have_class(re.compile(r"\bbye\b"))
    expect(bye).to_have_attribute("data-winner", players[0].account_id)
    expect(bye.get_by_test_id("bracket-player").nth(1)).to_have_text("(bye)")
    expect(bye.get_by_test_id("bracket-table")).to_have_count(0)
    expect(match_box(ann, 2, 1).get_by_test_id("bracket-player").nth(0)).to_have_attribute(
        "data-player", players[0].account_id
    )
    names = {e["player"]: e["name"] for e in server.run(view(api, three))["entrants"]}
    expect(ann.test_id("round").nth(0).get_by_test_id("board-result").nth(0)).to_have_text(
        f"{names[players[0].account_id]} has a bye"
    )

    # Four with a third place: once the semi-finals are played, the losers' match is drawn
    # under the final, with its own table.
    four = server.run(create(api, ann.user, format="knockout", match_length=1, third_place=True))
    enter_all(server, four, players)
    start(server, four, ann.user)
    ann.page.goto(f"/#/tournament/{four}")
    expect(ann.test_id("tournament-settings")).to_contain_text("a match for third place")
    semis = server.run(until(api, four, lambda v: len(v["rounds"]) == 1))["rounds"][0]["boards"]
    for b in semis:
        server.run(forfeit(api, b["table_id"], users, loser=b["b"]))
    last = server.run(until(api, four, lambda v: len(v["rounds"]) == 2))["rounds"][1]["boards"]
    third = match_box(ann, 2, 2)
    expect(third).to_have_attribute("aria-label", "Third place")
    assert {last[1]["a"], last[1]["b"]} == {semis[0]["b"], semis[1]["b"]}
    expect_players(third, [last[1]["a"], last[1]["b"]])  # (the higher seed first)
    expect(third.get_by_test_id("bracket-table")).to_have_attribute(
        "href", f"#/table/{last[1]['table_id']}"
    )
    final_box = match_box(ann, 2, 1).bounding_box()
    third_box = third.bounding_box()
    assert final_box and third_box and third_box["y"] > final_box["y"] + final_box["height"]
    # Nothing of the final round decided yet: nothing to adjust.
    expect(ann.test_id("adjust-none")).to_be_visible()
    expect(ann.test_id("adjust-submit")).to_be_disabled()
    screenshot(ann.page, "third-place")


def test_without_a_stream_the_page_polls(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    """A server that answers no tournament stream (an older one: a 404, here the browser's own
    answer to every attempt): the page gives the stream up and asks every few seconds, and
    still shows the match decided and the winner."""
    server, api = live_server, live_server.api
    ann = enter_registered(new_page(base_url=server.url), server)
    attempts: list[str] = []

    def refuse(route: Any) -> None:
        attempts.append(route.request.url)
        route.fulfill(status=404, content_type="application/problem+json", body="{}")

    ann.page.route(re.compile(r"/tournaments/[^/]+/events"), refuse)
    players = [server.run(api.register()) for _ in range(2)]
    users = {u.account_id: u for u in players}
    tid = server.run(create(api, ann.user, format="knockout", match_length=1))
    enter_all(server, tid, players)
    start(server, tid, ann.user)
    ann.page.goto(f"/#/tournament/{tid}")
    expect(ann.test_id("tournament-state")).to_have_text("Playing")
    final = server.run(until(api, tid, lambda v: len(v["rounds"]) == 1))["rounds"][0]["boards"][0]
    server.run(forfeit(api, final["table_id"], users, loser=final["b"]))
    expect(ann.test_id("tournament-state")).to_have_text("Finished")
    expect(match_box(ann, 1, 1)).to_have_attribute("data-winner", final["a"])
    expect(ann.test_id("tournament-status")).to_have_attribute("data-following", "poll")
    assert 1 <= len(attempts) <= 3, attempts  # (given up after three)
    assert all("ticket=" in url for url in attempts), attempts  # a signed-in tab's tickets


def test_a_stream_that_fails_once_is_opened_again_with_a_fresh_ticket(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server, api = live_server, live_server.api
    assert api.app is not None
    routes = {r.resource.canonical for r in api.app.router.routes() if r.resource is not None}
    ann = enter_registered(new_page(base_url=server.url), server)
    attempts: list[str] = []

    def once(route: Any) -> None:
        attempts.append(route.request.url)
        if len(attempts) == 1:
            route.abort()  # the network drops the first one
        else:
            route.continue_()

    ann.page.route(re.compile(r"/tournaments/[^/]+/events"), once)
    tid = server.run(create(api, ann.user, format="knockout", match_length=1))
    ann.page.goto(f"/#/tournament/{tid}")
    expect(ann.test_id("tournament-state")).to_have_text("Entering")
    if "/tournaments/{tournament_id}/events" not in routes:
        # A server without the stream (before it was built): the page polls; nothing to reopen.
        expect(ann.test_id("tournament-status")).to_have_attribute("data-following", "poll")
        return
    expect(ann.test_id("tournament-status")).to_have_attribute("data-following", "stream")
    tickets = [re.search(r"ticket=([^&]+)", url) for url in attempts]
    assert len(attempts) == 2 and all(tickets), attempts
    assert tickets[0] and tickets[1] and tickets[0][1] != tickets[1][1]
    # An entry through the API reaches the page through the stream (the poll is 20 s now).
    enter_all(server, tid, [server.run(api.register())])
    expect(ann.test_id("tournament-entrant")).to_have_count(1, timeout=5000)

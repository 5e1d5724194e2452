// The tournaments' pages' pure part (server/static/lib/tournament.js): the bracket laid out in
// columns, the words for results, who may do what, and the create form's body.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  allowed,
  bracketLayout,
  createBody,
  describeTournament,
  howText,
  namesOf,
  roundTitle,
  standingColumns,
  streamPath,
  usernames,
} from "../../server/static/lib/tournament.js";

const m = (round, a, b, extra = {}) => ({ round, a, b, bye: false, winner: null, third_place: false, ...extra });
const board = (n, a, b, extra = {}) => ({ board: n, a, b, table_id: `t${n}`, decided: false, winner: null, forfeit: false, how: null, reason: null, ...extra });

describe("a bracket", () => {
  it("names the rounds from the final back", () => {
    assert.deepEqual([1, 2, 3, 4].map((r) => roundTitle(r, 4)), ["Round 1", "Quarter-finals", "Semi-finals", "Final"]);
    assert.equal(roundTitle(1, 1), "Final");
    assert.equal(roundTitle(2, 5), "Round 2");
  });

  it("centres each match on the pair it follows, rows counted in first-round matches", () => {
    // Eight players: 4, 2 and 1 matches.
    const view = {
      bracket: [
        [m(1, "s1", "s8"), m(1, "s4", "s5"), m(1, "s2", "s7"), m(1, "s3", "s6")],
        [m(2, null, null), m(2, null, null)],
        [m(3, null, null)],
      ],
      rounds: [],
    };
    const { columns, rows } = bracketLayout(view);
    assert.equal(rows, 4);
    assert.deepEqual(columns.map((c) => c.title), ["Quarter-finals", "Semi-finals", "Final"]);
    assert.deepEqual(columns.map((c) => c.matches.map((x) => [x.row, x.span])), [
      [[1, 1], [2, 1], [3, 1], [4, 1]],
      [[1, 2], [3, 2]],
      [[1, 4]],
    ]);
    assert.ok(columns.flatMap((c) => c.matches).every((x) => !x.paired && x.tableId === null));
  });

  it("takes each paired match's table and result from its round's board, byes marked", () => {
    const view = {
      bracket: [
        [m(1, "ann", null, { bye: true, winner: "ann" }), m(1, "bob", "cat", { winner: "cat" })],
        [m(2, "ann", "cat")],
      ],
      rounds: [
        { round: 1, boards: [board(1, "ann", null, { table_id: null, decided: true, winner: "ann", how: "bye" }), board(2, "bob", "cat", { decided: true, winner: "cat", how: "match" })] },
      ],
    };
    const [first, final] = bracketLayout(view).columns;
    assert.deepEqual(
      first.matches.map((x) => [x.a, x.b, x.bye, x.winner, x.tableId, x.how]),
      [
        ["ann", null, true, "ann", null, "bye"],
        ["bob", "cat", false, "cat", "t2", "match"],
      ],
    );
    assert.deepEqual([final.title, final.matches[0].a, final.matches[0].b, final.matches[0].paired], ["Final", "ann", "cat", false]);
  });

  it("puts the third-place match on a row of its own under the final", () => {
    const view = {
      bracket: [
        [m(1, "a", "d", { winner: "a" }), m(1, "b", "c", { winner: "b" })],
        [m(2, "a", "b"), m(2, "d", "c", { third_place: true })],
      ],
      rounds: [
        { round: 1, boards: [board(1, "a", "d"), board(2, "b", "c")] },
        { round: 2, boards: [board(1, "a", "b", { table_id: "f" }), board(2, "d", "c", { table_id: "third" })] },
      ],
    };
    const { columns, rows } = bracketLayout(view);
    assert.equal(rows, 3);
    const [final, third] = columns[1].matches;
    assert.deepEqual([final.row, final.span, final.tableId], [1, 2, "f"]);
    assert.deepEqual([third.thirdPlace, third.row, third.span, third.tableId], [true, 3, 1, "third"]);
  });

  it("is empty before two players entered", () => {
    assert.deepEqual(bracketLayout({ bracket: [], rounds: [] }), { columns: [], rows: 0 });
  });
});

describe("a result in words", () => {
  const nameOf = namesOf({ entrants: [{ player: "a", name: "Ann" }, { player: "b", name: "Bob" }] });

  it("says how each board was decided", () => {
    assert.equal(howText(board(1, "a", "b"), nameOf), null);
    assert.equal(howText(board(1, "a", "b", { decided: true, winner: "a", how: "match" }), nameOf), "Ann won the match");
    assert.equal(howText(board(1, "a", "b", { decided: true, winner: "b", forfeit: true, how: "match" }), nameOf), "Bob won (a forfeit at the table)");
    assert.equal(howText(board(1, "a", null, { decided: true, winner: "a", how: "bye" }), nameOf), "Ann has a bye");
    assert.equal(howText(board(1, "a", "b", { decided: true, winner: null, forfeit: true, how: "no_show" }), nameOf), "Neither player came");
    assert.equal(
      howText(board(1, "a", "b", { decided: true, winner: "b", how: "adjusted", reason: "a wrong click" }), nameOf),
      "Bob won (adjusted by the director: a wrong click)",
    );
    assert.equal(nameOf("someone else"), "a player");
  });

  it("shows the tie-breaks the format ranks by", () => {
    assert.deepEqual(standingColumns("swiss").map(([k]) => k), ["rank", "player", "points", "played", "won", "buchholz", "sonneborn_berger"]);
    assert.deepEqual(standingColumns("round_robin").map(([k]) => k), ["rank", "player", "points", "played", "won", "sonneborn_berger"]);
  });
});

describe("who may do what", () => {
  const view = (extra = {}, options = {}) => ({
    director: "dir",
    status: "entering",
    entrants: [{ player: "ann", withdrawn: false }],
    options: { format: "knockout", rated: false, entries_close: null, max_field: null, ...options },
    ...extra,
  });
  const me = (id, guest = false) => ({ account_id: id, guest });

  it("offers entry to a player not in, until the start, the window or a full field", () => {
    assert.equal(allowed(view(), me("bob")).enter, true);
    assert.equal(allowed(view(), me("ann")).enter, false);
    assert.equal(allowed(view(), null).enter, false);
    assert.equal(allowed(view({ status: "playing" }), me("bob")).enter, false);
    assert.equal(allowed(view({}, { entries_close: 1000 }), me("bob"), 2000).enter, false);
    assert.equal(allowed(view({}, { entries_close: 3000 }), me("bob"), 2000).enter, true);
    assert.equal(allowed(view({}, { max_field: 2 }), me("bob")).enter, true);
    assert.equal(allowed(view({ entrants: [{ player: "ann" }, { player: "cat" }] }, { max_field: 2 }), me("bob")).enter, false);
  });

  it("bars a guest from a rated one, and says so", () => {
    const can = allowed(view({}, { rated: true }), me("g", true));
    assert.deepEqual([can.enter, can.guestBarred], [false, true]);
  });

  it("lets an entrant withdraw until the end, and the director start and adjust", () => {
    assert.equal(allowed(view(), me("ann")).withdraw, true);
    assert.equal(allowed(view({ status: "finished" }), me("ann")).withdraw, false);
    assert.equal(allowed(view({ entrants: [{ player: "ann", withdrawn: true }] }), me("ann")).withdraw, false);
    assert.deepEqual([allowed(view(), me("dir")).start, allowed(view(), me("ann")).start], [true, false]);
    assert.deepEqual([allowed(view({ status: "playing" }), me("dir")).adjust, allowed(view(), me("dir")).adjust], [true, false]);
  });
});

describe("the create form's body", () => {
  const base = { format: "knockout", name: "  Spring cup ", matchLength: "3", rounds: "4", thirdPlace: false, rated: false, private: false, invited: [], maxField: "", entriesClose: null, showSeconds: "600", clock: "default", delay: "12", reserve: "120" };

  it("sends what goes with the format, and leaves empty fields to the server", () => {
    assert.deepEqual(createBody(base), { name: "Spring cup", options: { format: "knockout", match_length: 3, show_seconds: 600 } });
    assert.deepEqual(createBody({ ...base, format: "swiss", thirdPlace: true, name: "" }), { options: { format: "swiss", match_length: 3, rounds: 4, show_seconds: 600 } });
    assert.equal(createBody({ ...base, thirdPlace: true }).options.third_place, true);
  });

  it("carries every option the API takes", () => {
    const body = createBody({ ...base, format: "round_robin", rated: true, private: true, invited: ["acc1"], maxField: "8", entriesClose: 1700000000000, showSeconds: "60", clock: "custom", delay: "5", reserve: "90", commandId: "c" });
    assert.deepEqual(body.options, {
      format: "round_robin",
      match_length: 3,
      rated: true,
      private: true,
      invited: ["acc1"],
      max_field: 8,
      entries_close: 1700000000000,
      show_seconds: 60,
      clock: { delay: 5, reserve: 90 },
    });
    assert.equal(body.command_id, "c");
    assert.equal(createBody({ ...base, clock: "off" }).options.clock, "off");
    assert.equal(createBody({ ...base, private: false, invited: ["x"] }).options.invited, undefined);
  });

  it("reads the usernames typed, each once", () => {
    assert.deepEqual(usernames(" ann, bob  cat,,ann "), ["ann", "bob", "cat"]);
    assert.deepEqual(usernames(""), []);
  });
});

describe("the live stream", () => {
  it("resumes after the version drawn, with a ticket when signed in", () => {
    assert.equal(streamPath("a b", 7), "/tournaments/a%20b/events?after=7");
    assert.equal(streamPath("t", 0, "x-y"), "/tournaments/t/events?after=0&ticket=x-y");
  });
});

describe("the settings in words", () => {
  it("names what differs by format, and the clock", () => {
    const base = { format: "swiss", rounds: 1, match_length: 5, third_place: false, rated: true, private: false, max_field: null, clock: "off", show_seconds: 60 };
    assert.equal(describeTournament(base), "Swiss, 1 round, 5-point matches, rated, no clock, a no-show after 60 s");
    assert.equal(
      describeTournament({ ...base, format: "knockout", rounds: null, third_place: true, rated: false, private: true, max_field: 16, clock: { delay: 12, reserve: 120 } }),
      "Knockout, 5-point matches, a match for third place, not rated, private, at most 16 players, clock 12 s a move + 120 s, a no-show after 60 s",
    );
  });
});

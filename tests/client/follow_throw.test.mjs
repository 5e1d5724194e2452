// The table page follows a throw from its stream message (server/static/table/table_feed.js): what
// the viewer may send, the box's choices and whose turn it is come from the message, as the
// server says them for that viewer; the page derives none of them.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { followThrow, passedThrow } from "../../server/static/table/table_feed.js";

const view = {
  version: 7,
  chain_head: "aa",
  allowed: ["chat", "double", "leave", "roll"],
  targets: { double: ["cat"] },
  seed_window: null,
  game: { number: 1, phase: "roll", turn: 1, legal_plays: [{ notation: "24/23", steps: [[[24, 23]]] }], sides: [{ players: ["box"] }, { players: ["ann", "cat"] }], dice: null },
};
// 8/5 6/5 as a tree of steps: 8/5 then 6/5 (node 1), and the play is complete.
const tree = [[[8, 5, false, 1]], [[6, 5, false, 0]]];
const m = {
  player: "ann",
  dice: [3, 1],
  play_tree: tree,
  status: "Waiting for Ann to move 3-1.",
  position_id: "4HPwATDgc/ABMA",
  now: 1000,
  clocks: [],
  viewers: {
    ann: { allowed: ["chat", "leave", "move"], targets: {}, turn: 0 },
    box: { allowed: ["chat", "leave"], targets: {}, turn: 1 },
  },
  spectator: { allowed: ["join"], targets: {}, turn: 0 },
  anonymous: { allowed: [], targets: {}, turn: 0 },
};
const msg = { v: 8, h: "bb", t: "dice_rolled", m };

describe("following a throw", () => {
  it("takes each viewer's allowed, targets and turn from the message", () => {
    const boxes = followThrow(view, msg, "box");
    assert.deepEqual(boxes.allowed, ["chat", "leave"]);
    assert.deepEqual(boxes.targets, {});
    assert.equal(boxes.game.turn, 1);
    assert.equal(boxes.version, 8);
    assert.equal(boxes.chain_head, "bb");
    assert.deepEqual(boxes.game.play_tree, tree);
    assert.equal(boxes.game.legal_plays, undefined); // the turn before's list is not kept
    assert.equal(boxes.game.phase, "move");
    const anns = followThrow(view, msg, "ann");
    assert.deepEqual(anns.allowed, ["chat", "leave", "move"]);
    assert.equal(anns.game.turn, 0);
  });

  it("takes what leaving costs each viewer after the throw from the message", () => {
    const cost = { points: -3, match: false, text: "Leaving now forfeits this game: you lose 3 points (a backgammon at a cube of 1)." };
    const opening = { ...m, viewers: { ...m.viewers, ann: { ...m.viewers.ann, leave_cost: cost }, box: { ...m.viewers.box, leave_cost: null } } };
    const before = { ...view, leave_cost: null };
    assert.deepEqual(followThrow(before, { ...msg, m: opening }, "ann").leave_cost, cost);
    assert.equal(followThrow({ ...view, leave_cost: cost }, { ...msg, m: opening }, "box").leave_cost, null);
    // A server that does not say it: the view's own stays.
    assert.deepEqual(followThrow({ ...view, leave_cost: cost }, msg, "ann").leave_cost, cost);
  });

  it("gives a watcher the spectator's or the anonymous viewer's", () => {
    assert.deepEqual(followThrow(view, msg, "zed").allowed, ["join"]);
    assert.deepEqual(followThrow(view, msg, null).allowed, []);
  });

  it("does not follow what it cannot", () => {
    assert.equal(followThrow({ ...view, version: 6 }, msg, "box"), null); // a version missed
    assert.equal(followThrow(view, { ...msg, m: { ...m, play_tree: [[]] } }, "box"), null); // a pass
    const { play_tree: _, ...listOnly } = m; // an older server's list of plays: fetch the view
    assert.equal(followThrow(view, { ...msg, m: { ...listOnly, plays: [] } }, "box"), null);
    assert.equal(followThrow(view, { ...msg, m: undefined }, "box"), null);
    const { viewers, spectator, anonymous, ...older } = m; // a server that does not say
    assert.equal(followThrow(view, { ...msg, m: older }, "box"), null);
  });
});

describe("a throw that could not be played", () => {
  const passed = { v: 9, s: "table", t: "dice_rolled", m: { passed: true, status: "Bob cannot move 6-6.", play_tree: [[]] } };
  it("is said in the message's words", () => {
    assert.equal(passedThrow(passed), "Bob cannot move 6-6.");
  });
  it("is nothing for a throw that can be played, another event or a message without m", () => {
    assert.equal(passedThrow({ ...passed, m: { ...passed.m, passed: false, status: "Waiting for Bob to move 6-6." } }), null);
    assert.equal(passedThrow({ v: 10, s: "table", t: "dice_rolled" }), null);
    assert.equal(passedThrow({ v: 10, s: "table", t: "player_moved", d: {} }), null);
    assert.equal(passedThrow(null), null);
  });
  it("is not followed from m: the page fetches the view, the turn has passed", () => {
    assert.equal(followThrow({ version: 8, game: {} }, passed, "u_bob"), null);
  });
});

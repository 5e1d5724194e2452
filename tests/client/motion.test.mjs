// Checkers in motion (server/static/board/motion.js): which checkers moved between two boards, and
// where each stood and lands.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import * as g from "../../server/static/board/geometry.js";
import { flights, spot } from "../../server/static/board/motion.js";

const START = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];

function moved(board, steps) {
  const b = [...board];
  for (const [from, to] of steps) {
    b[from] -= 1;
    b[to] += 1;
  }
  return b;
}

describe("flights", () => {
  it("pairs a play's checkers from the farthest, each from the top of its stack", () => {
    const after = { viewer: moved(START, [[13, 7], [6, 5]]), opponent: START };
    assert.deepEqual(flights({ viewer: START, opponent: START }, after), [
      { side: "viewer", from: 13, to: 7, height: 5, landing: 1 },
      { side: "viewer", from: 6, to: 5, height: 5, landing: 1 },
    ]);
  });

  it("takes two checkers off one stack from its top down, and lands them one on the other", () => {
    const after = { viewer: moved(START, [[8, 5], [8, 5]]), opponent: START };
    assert.deepEqual(flights({ viewer: START, opponent: START }, after), [
      { side: "viewer", from: 8, to: 5, height: 3, landing: 1 },
      { side: "viewer", from: 8, to: 5, height: 2, landing: 2 },
    ]);
  });

  it("draws the opponent's checkers in the viewer's numbering, and sends a hit blot to its bar", () => {
    const blot = [...START];
    blot[6] = 4;
    blot[5] = 1; // the viewer's blot on their 5 point: the opponent's 20 point
    const theirs = moved(START, [[24, 20]]);
    const hitBlot = moved(blot, [[5, 25]]);
    assert.deepEqual(flights({ viewer: blot, opponent: START }, { viewer: hitBlot, opponent: theirs }), [
      { side: "viewer", from: 5, to: 25, height: 1, landing: 1 },
      { side: "opponent", from: 1, to: 5, height: 2, landing: 1 },
    ]);
  });

  it("moves nothing when the boards are more than a play apart (a new game) or the same", () => {
    const empty = new Array(26).fill(0);
    assert.deepEqual(flights({ viewer: empty, opponent: empty }, { viewer: START, opponent: START }), []);
    const off = [15, ...new Array(25).fill(0)];
    assert.deepEqual(flights({ viewer: off, opponent: START }, { viewer: START, opponent: START }), []);
    assert.deepEqual(flights({ viewer: START, opponent: START }, { viewer: START, opponent: START }), []);
  });
});

describe("spot", () => {
  it("is the centre of the checker at that height, the last drawn one above the stack's cap", () => {
    const five = g.stack("viewer", 6, 5).checkers;
    assert.deepEqual(spot("viewer", 6, 3), { x: five[2].cx, y: five[2].cy });
    assert.deepEqual(spot("viewer", 6, 9), { x: five[4].cx, y: five[4].cy });
  });

  it("is the middle of a slab in a tray", () => {
    const slab = g.stack("viewer", g.OFF, 2).checkers[1];
    assert.deepEqual(spot("viewer", g.OFF, 2), { x: slab.x + slab.width / 2, y: slab.y + slab.height / 2 });
  });
});

// Board geometry (server/static/board/geometry.js): layout, stacks, dice, hit testing, orientation.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import * as g from "../../server/static/board/geometry.js";

const START = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];

function board(points) {
  const b = new Array(26).fill(0);
  for (const [p, n] of Object.entries(points)) b[Number(p)] = n;
  return b;
}

function centre(rect) {
  return [rect.x + rect.width / 2, rect.y + rect.height / 2];
}

describe("the frame", () => {
  it("fits in the viewBox, left to right and top to bottom", () => {
    assert.equal(g.VIEWBOX, `0 0 ${g.WIDTH} ${g.HEIGHT}`);
    assert.ok(g.CUBE_X < g.LEFT_X && g.LEFT_X < g.BAR_X && g.BAR_X < g.RIGHT_X);
    assert.ok(g.RIGHT_X < g.BOARD_RIGHT && g.BOARD_RIGHT < g.TRAY_X);
    assert.equal(g.WIDTH, g.TRAY_X + g.SIDE_W + g.FRAME);
    assert.ok(g.TOP_Y < g.MID_TOP && g.MID_TOP < g.MID_Y && g.MID_Y < g.MID_BOTTOM);
    assert.equal(g.HEIGHT, g.BOTTOM_Y + g.FRAME);
    assert.equal(g.BAR_X - g.LEFT_X, 6 * g.CHECKER);
    assert.equal(g.BOARD_RIGHT - g.RIGHT_X, 6 * g.CHECKER);
  });
});

describe("points, from the viewer's side", () => {
  it("puts the home board bottom right, 1 in the corner", () => {
    assert.equal(g.pointX(1), g.BOARD_RIGHT - g.CHECKER);
    assert.equal(g.pointX(6), g.RIGHT_X);
    assert.equal(g.pointX(7), g.BAR_X - g.CHECKER);
    assert.equal(g.pointX(12), g.LEFT_X);
    assert.equal(g.pointX(13), g.LEFT_X);
    assert.equal(g.pointX(18), g.BAR_X - g.CHECKER);
    assert.equal(g.pointX(19), g.RIGHT_X);
    assert.equal(g.pointX(24), g.BOARD_RIGHT - g.CHECKER);
    for (let p = 1; p <= 12; p++) assert.equal(g.isTop(p), false, p);
    for (let p = 13; p <= 24; p++) assert.equal(g.isTop(p), true, p);
  });

  it("gives every point its own column in its row", () => {
    const seen = new Set();
    for (let p = 1; p <= 24; p++) seen.add(`${g.pointX(p)}:${g.isTop(p)}`);
    assert.equal(seen.size, 24);
    // Point p faces point 25 - p across the board.
    for (let p = 1; p <= 12; p++) assert.equal(g.pointX(p), g.pointX(25 - p));
  });

  it("draws triangles from the frame toward the middle", () => {
    const [a, b, tip] = g.pointTriangle(1);
    assert.deepEqual(a, [g.pointX(1), g.BOTTOM_Y]);
    assert.deepEqual(b, [g.pointX(1) + g.CHECKER, g.BOTTOM_Y]);
    assert.equal(tip[0], g.pointX(1) + g.CHECKER / 2);
    assert.ok(tip[1] < g.BOTTOM_Y && tip[1] > g.MID_BOTTOM);
    const top = g.pointTriangle(20);
    assert.equal(top[0][1], g.TOP_Y);
    assert.ok(top[2][1] > g.TOP_Y && top[2][1] < g.MID_TOP);
    assert.equal(g.pointPolygon(13), g.pointTriangle(13).map((v) => v.join(",")).join(" "));
  });

  it("labels each point in the frame", () => {
    assert.deepEqual(g.pointLabel(1), {
      x: g.pointX(1) + g.CHECKER / 2,
      y: g.BOTTOM_Y + g.FRAME / 2,
      text: "1",
    });
    assert.equal(g.pointLabel(24).y, g.TOP_Y / 2);
  });

  it("refuses what is not a point", () => {
    for (const bad of [0, 25, -1, 1.5, "3", null, undefined, NaN]) {
      assert.throws(() => g.pointX(bad), RangeError);
    }
  });
});

describe("the mapping between the two sides' numberings", () => {
  it("is p <-> 25 - p, an involution", () => {
    assert.equal(g.otherSide(1), 24);
    assert.equal(g.otherSide(24), 1);
    assert.equal(g.otherSide(13), 12);
    for (let p = 0; p <= 25; p++) assert.equal(g.otherSide(g.otherSide(p)), p);
  });

  it("keeps the bar and the tray each side's own", () => {
    assert.equal(g.otherSide(g.BAR), g.BAR);
    assert.equal(g.otherSide(g.OFF), g.OFF);
    assert.throws(() => g.otherSide(26), RangeError);
  });
});

describe("stacks", () => {
  it("grows a bottom point upward from the frame", () => {
    const s = g.stack("viewer", 6, 3);
    assert.equal(s.label, null);
    assert.deepEqual(
      s.checkers.map((c) => c.cy),
      [g.BOTTOM_Y - 25, g.BOTTOM_Y - 75, g.BOTTOM_Y - 125],
    );
    for (const c of s.checkers) {
      assert.equal(c.cx, g.pointX(6) + 25);
      assert.equal(c.r, g.CHECKER_R);
    }
  });

  it("grows a top point downward from the frame", () => {
    const s = g.stack("opponent", 19, 2);
    assert.deepEqual(
      s.checkers.map((c) => c.cy),
      [g.TOP_Y + 25, g.TOP_Y + 75],
    );
  });

  it("draws five and labels the count past five", () => {
    const five = g.stack("viewer", 13, 5);
    assert.equal(five.checkers.length, 5);
    assert.equal(five.label, null);
    const eight = g.stack("viewer", 13, 8);
    assert.equal(eight.checkers.length, 5);
    const last = eight.checkers[4];
    assert.deepEqual(eight.label, { x: last.cx, y: last.cy, text: "8" });
    // Five checkers fill the point and stay out of the middle band.
    assert.ok(last.cy + g.CHECKER_R <= g.MID_TOP);
    const bottom = g.stack("viewer", 1, 15);
    assert.ok(bottom.checkers[4].cy - g.CHECKER_R >= g.MID_BOTTOM);
    assert.equal(bottom.label.text, "15");
  });

  it("stacks each side's bar checkers in its own half", () => {
    const mine = g.stack("viewer", g.BAR, 2);
    const theirs = g.stack("opponent", g.BAR, 2);
    for (const c of [...mine.checkers, ...theirs.checkers]) {
      assert.equal(c.cx, g.BAR_X + g.BAR_W / 2);
    }
    for (const c of mine.checkers) assert.ok(c.cy + c.r <= g.MID_Y);
    for (const c of theirs.checkers) assert.ok(c.cy - c.r >= g.MID_Y);
    assert.ok(mine.checkers[1].cy < mine.checkers[0].cy);
    const many = g.stack("viewer", g.BAR, 6);
    assert.equal(many.checkers.length, g.BAR_STACK);
    assert.equal(many.label.text, "6");
    assert.ok(many.checkers.at(-1).cy - g.CHECKER_R >= g.TOP_Y);
  });

  it("slabs borne-off checkers into each side's tray", () => {
    const mine = g.stack("viewer", g.OFF, 15);
    assert.equal(mine.checkers.length, 15);
    const tray = g.trayRect("viewer");
    for (const c of mine.checkers) {
      assert.ok(c.x >= tray.x && c.x + c.width <= tray.x + tray.width);
      assert.ok(c.y >= tray.y - 1e-9 && c.y + c.height <= tray.y + tray.height + 1e-9);
    }
    assert.ok(Math.abs(mine.checkers[0].y + mine.checkers[0].height - g.BOTTOM_Y) < 1e-9);
    assert.equal(mine.label.text, "15");
    const theirs = g.stack("opponent", g.OFF, 1);
    assert.equal(theirs.checkers[0].y, g.TOP_Y);
    assert.ok(theirs.label.y < g.MID_Y && mine.label.y > g.MID_Y);
    assert.deepEqual(g.stack("viewer", g.OFF, 0), { checkers: [], label: null });
  });

  it("refuses impossible stacks", () => {
    assert.throws(() => g.stack("viewer", 3, 16), RangeError);
    assert.throws(() => g.stack("viewer", 3, -1), RangeError);
    assert.throws(() => g.stack("white", 3, 1), RangeError);
    assert.throws(() => g.stack("viewer", 26, 1), RangeError);
  });
});

describe("layout of a whole board", () => {
  it("draws the starting position from the viewer's side", () => {
    const stacks = g.layout(START, START);
    const where = stacks.map((s) => `${s.side}:${s.point}:${s.count}`).sort();
    assert.deepEqual(
      where,
      [
        "viewer:6:5",
        "viewer:8:3",
        "viewer:13:5",
        "viewer:24:2",
        "opponent:19:5",
        "opponent:17:3",
        "opponent:12:5",
        "opponent:1:2",
      ].sort(),
    );
    const total = stacks.reduce((n, s) => n + s.checkers.length, 0);
    assert.equal(total, 30);
    // The opponent's 24 point (two back checkers) is the viewer's 1 point, bottom right.
    const back = stacks.find((s) => s.side === "opponent" && s.point === 1);
    assert.equal(back.checkers[0].cx, g.pointX(1) + 25);
    assert.equal(back.checkers[0].cy, g.BOTTOM_Y - 25);
  });

  it("puts the bar and the trays per side", () => {
    const viewer = board({ 25: 1, 0: 3, 6: 11 });
    const opponent = board({ 25: 2, 0: 4, 1: 9 });
    const stacks = g.layout(viewer, opponent);
    const bar = stacks.filter((s) => s.point === g.BAR);
    assert.deepEqual(bar.map((s) => [s.side, s.count]).sort(), [
      ["opponent", 2],
      ["viewer", 1],
    ]);
    const trays = stacks.filter((s) => s.point === g.OFF);
    assert.deepEqual(trays.map((s) => [s.side, s.count]).sort(), [
      ["opponent", 4],
      ["viewer", 3],
    ]);
    assert.equal(stacks.find((s) => s.side === "viewer" && s.point === 6).label.text, "11");
    assert.ok(stacks.find((s) => s.side === "opponent" && s.point === 24));
  });

  it("refuses malformed boards", () => {
    assert.throws(() => g.layout(START.slice(1), START), TypeError);
    assert.throws(() => g.layout(START, [...START.slice(1), -1]), TypeError);
    assert.throws(() => g.layout(START, [...START.slice(1), 1.5]), TypeError);
    assert.throws(() => g.layout(null, START), TypeError);
  });
});

describe("dice and cube", () => {
  it("puts the viewer's dice in the home quarter and the opponent's in the outer", () => {
    const mine = g.dicePositions("viewer");
    const theirs = g.dicePositions("opponent");
    assert.equal(mine.length, 2);
    for (const d of mine) {
      assert.ok(d.x >= g.RIGHT_X && d.x + d.size <= g.BOARD_RIGHT);
      assert.ok(d.y >= g.MID_TOP && d.y + d.size <= g.MID_BOTTOM);
      assert.equal(d.cx, d.x + d.size / 2);
      assert.equal(d.cy, g.MID_Y);
    }
    for (const d of theirs) assert.ok(d.x >= g.LEFT_X && d.x + d.size <= g.BAR_X);
    assert.ok(mine[0].x + mine[0].size < mine[1].x);
    const four = g.dicePositions("viewer", 4);
    assert.equal(four.length, 4);
    for (const d of four) assert.ok(d.x >= g.RIGHT_X && d.x + d.size <= g.BOARD_RIGHT);
    assert.deepEqual(g.dicePositions("viewer", 0), []);
    assert.throws(() => g.dicePositions("viewer", 5), RangeError);
  });

  it("gives each face its pips", () => {
    for (let v = 1; v <= 6; v++) {
      const pips = g.diePips(v);
      assert.equal(pips.length, v);
      for (const [x, y] of pips) assert.ok(x > 0 && x < 1 && y > 0 && y < 1);
      assert.equal(new Set(pips.map((p) => p.join())).size, v);
    }
    assert.throws(() => g.diePips(0), RangeError);
    assert.throws(() => g.diePips(7), RangeError);
  });

  it("centres the cube, or moves it to its owner's end", () => {
    const c = g.cubePosition();
    assert.equal(c.cy, g.MID_Y);
    assert.ok(c.x >= g.CUBE_X && c.x + c.size <= g.CUBE_X + g.SIDE_W);
    assert.ok(g.cubePosition("viewer").cy > g.MID_BOTTOM);
    assert.ok(g.cubePosition("opponent").cy < g.MID_TOP);
    assert.ok(g.cubePosition("viewer").y + g.CUBE <= g.BOTTOM_Y);
    assert.ok(g.cubePosition("opponent").y >= g.TOP_Y);
    assert.throws(() => g.cubePosition("box"), RangeError);
  });
});

describe("hit testing", () => {
  it("finds every point from its rectangle, triangle tip and checkers", () => {
    for (let p = 1; p <= 24; p++) {
      const r = g.pointRect(p);
      assert.equal(g.pointAt(...centre(r)), p, `centre of ${p}`);
      assert.equal(g.pointAt(r.x, r.y), p, `corner of ${p}`);
      assert.equal(g.pointAt(r.x + r.width - 0.01, r.y + r.height - 0.01), p);
      const tip = g.pointTriangle(p)[2];
      assert.equal(g.pointAt(tip[0], tip[1]), p, `tip of ${p}`);
      for (const c of g.stack("viewer", p, 15).checkers) assert.equal(g.pointAt(c.cx, c.cy), p);
      assert.deepEqual(g.regionAt(...centre(r)), { kind: "point", point: p });
    }
  });

  it("splits the middle band between the rows at the centre line", () => {
    const x = g.pointX(1) + 10;
    assert.equal(g.pointAt(x, g.MID_Y - 0.01), 24);
    assert.equal(g.pointAt(x, g.MID_Y), 1);
  });

  it("finds the bar, the viewer's tray and nothing else", () => {
    assert.equal(g.pointAt(g.BAR_X + 1, g.TOP_Y + 1), g.BAR);
    assert.equal(g.pointAt(g.BAR_X + g.BAR_W - 0.01, g.BOTTOM_Y - 0.01), g.BAR);
    for (const c of g.stack("viewer", g.BAR, 4).checkers) {
      assert.equal(g.pointAt(c.cx, c.cy), g.BAR);
    }
    assert.equal(g.pointAt(...centre(g.trayRect("viewer"))), g.OFF);
    assert.equal(g.pointAt(...centre(g.trayRect("opponent"))), null);
    assert.deepEqual(g.regionAt(...centre(g.trayRect("opponent"))), {
      kind: "tray",
      side: "opponent",
    });
    assert.deepEqual(g.regionAt(g.cubePosition().cx, g.cubePosition().cy), { kind: "cube" });
    for (const [x, y] of [
      [-1, 100],
      [5, 100], // the frame
      [g.LEFT_X - 1, 100], // between the cube column and the board
      [g.BOARD_RIGHT + 1, 100], // between the board and the tray
      [300, 5], // the top frame
      [300, g.BOTTOM_Y], // the bottom frame
      [300, g.HEIGHT + 10],
      [g.WIDTH, 300],
      [NaN, 300],
      [300, Infinity],
    ]) {
      assert.equal(g.pointAt(x, y), null, `${x},${y}`);
    }
  });
});

describe("pip counts", () => {
  it("counts the start as 167 and the bar as 25", () => {
    assert.equal(g.pipCount(START), 167);
    assert.equal(g.pipCount(board({ 25: 1 })), 25);
    assert.equal(g.pipCount(board({ 0: 15 })), 0);
  });
});

describe("orientation: the viewer's side and the opponent's", () => {
  const a = board({ 6: 15 }); // the side on roll
  const b = board({ 24: 15 });

  it("keeps or swaps the arrays of the side on roll", () => {
    assert.deepEqual(g.orient(a, b, true), { viewer: a, opponent: b });
    assert.deepEqual(g.orient(a, b, false), { viewer: b, opponent: a });
    const o = g.orient(a, b, true);
    o.viewer[6] = 0;
    assert.equal(a[6], 15, "copies, never the caller's arrays");
  });

  it("reads a two-player table's on_roll/other", () => {
    const game = { turn: "bob", board: { on_roll: a, other: b } };
    const seats = ["ann", "bob"];
    assert.deepEqual(g.boardFromView(game, { viewerId: "bob", seats }), {
      viewer: a,
      opponent: b,
      viewerOnRoll: true,
    });
    assert.deepEqual(g.boardFromView(game, { viewerId: "ann", seats }), {
      viewer: b,
      opponent: a,
      viewerOnRoll: false,
    });
    // A spectator sees seat 0's side.
    assert.deepEqual(g.boardFromView(game, { viewerId: "eve", seats }), {
      viewer: b,
      opponent: a,
      viewerOnRoll: false,
    });
    assert.deepEqual(g.boardFromView(game, { seats }).viewer, b);
  });

  it("takes seat 0 as the side on roll before the opening throw", () => {
    const game = { turn: null, board: { on_roll: a, other: b } };
    const seats = ["ann", "bob"];
    assert.deepEqual(g.boardFromView(game, { viewerId: "ann", seats }), {
      viewer: a,
      opponent: b,
      viewerOnRoll: null,
    });
    assert.deepEqual(g.boardFromView(game, { viewerId: "bob", seats }).viewer, b);
  });

  it("reads a chouette's viewer_side/other_side", () => {
    const game = { turn: "team", board: { viewer_side: a, other_side: b } };
    assert.deepEqual(g.boardFromView(game, { viewerId: "cat", box: "ann" }), {
      viewer: a,
      opponent: b,
      viewerOnRoll: true,
    });
    assert.equal(g.boardFromView(game, { viewerId: "ann", box: "ann" }).viewerOnRoll, false);
    assert.equal(g.boardFromView(game, { box: "ann" }).viewerOnRoll, true, "spectators: team");
    const opening = { turn: null, board: { viewer_side: a, other_side: b } };
    assert.equal(g.boardFromView(opening, { viewerId: "ann", box: "ann" }).viewerOnRoll, null);
  });

  it("reads the sides of the one table schema", () => {
    const game = { turn: 1, sides: [{ board: b }, { board: a }] };
    assert.deepEqual(g.boardFromView(game), { viewer: b, opponent: a, viewerOnRoll: false });
    assert.equal(g.boardFromView({ ...game, turn: 0 }).viewerOnRoll, true);
    assert.equal(g.boardFromView({ ...game, turn: null }).viewerOnRoll, null);
  });

  it("refuses a game it cannot read", () => {
    assert.throws(() => g.boardFromView({ board: {} }), TypeError);
    assert.throws(() => g.boardFromView({ sides: [{ board: [1] }, { board: a }] }), TypeError);
  });
});

// The browser self-test (selftest.html): loads the page's pure modules, draws the starting
// position, matches a play, re-derives the dice of docs/dice.md's worked example with Web
// Crypto and asks the server whether it is ready. Each line says "ok" or what failed.

import { deriveDice, checkCommitment } from "./fair/dice.js";
import * as g from "./board/geometry.js";
import { completed, matchNotation } from "./board/moves.js";

const SVG = "http://www.w3.org/2000/svg";
const START = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];
const SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
const DICE = "3 1 5 1 2 4 1 1 3 5 1 4 4 2 2 4 5 4 2 4";

function say(id, ok, text) {
  const el = document.getElementById(id);
  el.textContent = ok ? "ok" : `failed: ${text}`;
  el.dataset.status = ok ? "ok" : "failed";
}

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

function drawBoard() {
  const board = svg("svg", {
    viewBox: g.VIEWBOX,
    role: "img",
    "aria-label": "The starting position",
    width: g.WIDTH,
    height: g.HEIGHT,
  });
  board.append(svg("rect", { x: 0, y: 0, width: g.WIDTH, height: g.HEIGHT, fill: "#6b3f1d" }));
  for (const x of [g.LEFT_X, g.RIGHT_X]) {
    const h = g.BOTTOM_Y - g.TOP_Y;
    board.append(svg("rect", { x, y: g.TOP_Y, width: 6 * g.CHECKER, height: h, fill: "#2f6b4f" }));
  }
  for (let p = 1; p <= 24; p++) {
    board.append(svg("polygon", { points: g.pointPolygon(p), fill: p % 2 ? "#d9c49a" : "#8c3b2a" }));
  }
  for (const st of g.layout(START, START)) {
    const fill = st.side === "viewer" ? "#f7f1e3" : "#262422";
    for (const c of st.checkers) board.append(svg("circle", { cx: c.cx, cy: c.cy, r: c.r, fill }));
  }
  for (const [i, d] of g.dicePositions("viewer").entries()) {
    board.append(svg("rect", { x: d.x, y: d.y, width: d.size, height: d.size, rx: 6, fill: "#fff" }));
    for (const [px, py] of g.diePips([6, 5][i])) {
      board.append(svg("circle", { cx: d.x + px * d.size, cy: d.y + py * d.size, r: 4 }));
    }
  }
  document.getElementById("drawing").replaceChildren(board);
  const checkers = g.layout(START, START).reduce((n, st) => n + st.checkers.length, 0);
  return checkers === 30 && g.pointAt(g.pointX(6) + 1, g.BOTTOM_Y - 1) === 6;
}

function checkMoves() {
  const plays = [
    { notation: "24/13", steps: [[[24, 18], [18, 13]], [[24, 19], [19, 13]]] },
    { notation: "13/7 13/8", steps: [[[13, 7], [13, 8]]] },
  ];
  return (
    matchNotation(plays, "24-18 18-13").play === "24/13" &&
    completed(plays, [
      [24, 19],
      [19, 13],
    ]) === "24/13"
  );
}

async function run() {
  say("modules", true);
  try {
    say("board", drawBoard(), "the starting position did not come out right");
  } catch (err) {
    say("board", false, err.message);
  }
  try {
    say("moves", checkMoves(), "a play was not recognised");
  } catch (err) {
    say("moves", false, err.message);
  }
  try {
    const dice = (await deriveDice(SEED, ["alice-7f3a", "bob likes sixes"], 20)).join(" ");
    const committed = await checkCommitment(SEED, COMMITMENT);
    say("dice", committed && dice === DICE, `derived ${dice}`);
  } catch (err) {
    say("dice", false, err.message);
  }
  try {
    const response = await fetch("/readyz", { headers: { Accept: "application/json" } });
    say("server", response.ok, `HTTP ${response.status}`);
  } catch (err) {
    say("server", false, err.message);
  }
  document.body.dataset.done = "true";
}

run();

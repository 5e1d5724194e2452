// Board geometry: where everything goes on the SVG board, drawn from the viewer's side.
//
// Pure functions and constants, no DOM. Coordinates are in the board's viewBox
// (`0 0 WIDTH HEIGHT`); the SVG scales them to any screen.
//
// Numbering. A board is two arrays of 26 counts, each in its own side's numbering: index 0 =
// borne off, 1..24 = points (1 = that side's ace point, 24 = its farthest), 25 = the bar. The
// drawing uses the VIEWER's numbering, laid out like GNU Backgammon's default: the viewer's home
// board bottom-right (point 1 at the bottom right corner, 12 bottom left, 13 top left, 24 top
// right), the viewer's borne-off tray bottom-right, the opponent's top-right. An opponent's
// point q is the viewer's point 25 - q. On the bar the viewer's checkers stand in the top half
// (they re-enter into the top-right quarter), the opponent's in the bottom half.
//
// Layout, left to right: frame, cube column, frame, outer quarter (points 7..12 below, 13..18
// above), bar, home quarter (1..6 below, 19..24 above), frame, tray column, frame. Top to
// bottom: frame, top points, the middle band (dice and cube live there), bottom points, frame.

export const CHECKER = 50; // a checker's diameter, and a point's width
export const CHECKER_R = 23; // a drawn checker's radius (a little gap between neighbours)
export const FRAME = 20;
export const SIDE_W = 60; // the cube column (left) and the tray column (right)
export const BAR_W = 60;
export const POINT_H = 5 * CHECKER; // a point's length: five checkers
export const MID_H = 100; // the middle band between the two rows of points
export const STACK = 5; // checkers drawn on a point before a count label is shown
export const BAR_STACK = 4; // checkers drawn on each half of the bar before a label
export const DIE = 44; // a die's side
export const CUBE = 44; // the cube's side
export const MINI_CUBE = 34; // a chouette member's cube, when the board shows several
export const MINI_LABEL = 16; // the line under it for its member's name
const MINI_SLOT = MINI_CUBE + MINI_LABEL + 6;

export const CUBE_X = FRAME; // the cube column
export const LEFT_X = CUBE_X + SIDE_W + FRAME; // the outer quarter: points 7..18
export const BAR_X = LEFT_X + 6 * CHECKER;
export const RIGHT_X = BAR_X + BAR_W; // the home quarter: points 1..6 and 19..24
export const BOARD_RIGHT = RIGHT_X + 6 * CHECKER;
export const TRAY_X = BOARD_RIGHT + FRAME;
export const WIDTH = TRAY_X + SIDE_W + FRAME;

export const TOP_Y = FRAME; // the top row's edge
export const MID_TOP = TOP_Y + POINT_H;
export const MID_Y = MID_TOP + MID_H / 2; // the board's horizontal centre line
export const MID_BOTTOM = MID_TOP + MID_H;
export const BOTTOM_Y = MID_BOTTOM + POINT_H; // the bottom row's edge
export const HEIGHT = BOTTOM_Y + FRAME;

export const VIEWBOX = `0 0 ${WIDTH} ${HEIGHT}`;

export const BAR = 25;
export const OFF = 0;
const SLAB = POINT_H / 15; // a borne-off checker seen edge on: fifteen fill a tray

/** The other side's number for a point: p <-> 25 - p for 1..24. The bar (25) and off (0) are
 * each side's own, so they map to themselves. */
export function otherSide(point) {
  checkPlace(point);
  return point === BAR || point === OFF ? point : 25 - point;
}

/** Whether a viewer's point is drawn in the top row (13..24) or the bottom row (1..12). */
export function isTop(point) {
  checkPoint(point);
  return point >= 13;
}

/** The left x of a point's column (viewer's numbering, 1..24). */
export function pointX(point) {
  checkPoint(point);
  if (point <= 6) return RIGHT_X + (6 - point) * CHECKER;
  if (point <= 12) return LEFT_X + (12 - point) * CHECKER;
  if (point <= 18) return LEFT_X + (point - 13) * CHECKER;
  return RIGHT_X + (point - 19) * CHECKER;
}

/** The triangle of a point: three [x, y] vertices, base on the frame, tip toward the middle. */
export function pointTriangle(point) {
  const x = pointX(point);
  const tip = POINT_H - 10;
  if (isTop(point)) return [[x, TOP_Y], [x + CHECKER, TOP_Y], [x + CHECKER / 2, TOP_Y + tip]];
  return [[x, BOTTOM_Y], [x + CHECKER, BOTTOM_Y], [x + CHECKER / 2, BOTTOM_Y - tip]];
}

/** The triangle as an SVG `points` attribute. */
export function pointPolygon(point) {
  return pointTriangle(point)
    .map(([x, y]) => `${x},${y}`)
    .join(" ");
}

/** The area that stands for a point (a click or a drop there means that point): its half
 * column from the frame to the centre line. */
export function pointRect(point) {
  const x = pointX(point);
  if (isTop(point)) return { x, y: TOP_Y, width: CHECKER, height: MID_Y - TOP_Y };
  return { x, y: MID_Y, width: CHECKER, height: BOTTOM_Y - MID_Y };
}

/** Where a point's number is written: in the frame beyond its base. */
export function pointLabel(point) {
  const x = pointX(point) + CHECKER / 2;
  return { x, y: isTop(point) ? TOP_Y / 2 : BOTTOM_Y + FRAME / 2, text: String(point) };
}

/** The bar's area, and each side's half of it. */
export const BAR_RECT = { x: BAR_X, y: TOP_Y, width: BAR_W, height: BOTTOM_Y - TOP_Y };

/** A side's borne-off tray: the viewer's bottom right, the opponent's top right. */
export function trayRect(side) {
  checkSide(side);
  return side === "viewer"
    ? { x: TRAY_X, y: MID_BOTTOM, width: SIDE_W, height: POINT_H }
    : { x: TRAY_X, y: TOP_Y, width: SIDE_W, height: POINT_H };
}

/**
 * The checkers of one stack, in drawing order: `count` checkers of `side` on `point`.
 *
 * `point` is in the viewer's numbering for 1..24; 25 is `side`'s bar and 0 its tray. On a
 * point the first checker sits at the frame and the stack grows toward the middle; past
 * STACK checkers (BAR_STACK on the bar) only that many are drawn and `label` gives the count
 * to write on the last one. In a tray each checker is a slab (`{x, y, width, height}`), and
 * `label` (any count) sits in the middle band of the tray column.
 *
 * @returns {{checkers: Array<{cx: number, cy: number, r: number}>|Array<{x: number, y: number,
 *   width: number, height: number}>, label: {x: number, y: number, text: string}|null}}
 */
export function stack(side, point, count) {
  checkSide(side);
  checkPlace(point);
  if (!Number.isInteger(count) || count < 0 || count > 15) {
    throw new RangeError(`a stack of ${count} checkers`);
  }
  if (point === OFF) return tray(side, count);
  let x;
  let y;
  let dy;
  let cap;
  const half = CHECKER / 2;
  if (point === BAR) {
    x = BAR_X + BAR_W / 2;
    cap = BAR_STACK;
    // Each side's bar checkers start a little off the centre line and grow outward.
    if (side === "viewer") [y, dy] = [MID_Y - 35, -CHECKER];
    else [y, dy] = [MID_Y + 35, CHECKER];
  } else {
    x = pointX(point) + half;
    cap = STACK;
    if (isTop(point)) [y, dy] = [TOP_Y + half, CHECKER];
    else [y, dy] = [BOTTOM_Y - half, -CHECKER];
  }
  const drawn = Math.min(count, cap);
  const checkers = [];
  for (let i = 0; i < drawn; i++) checkers.push({ cx: x, cy: y + i * dy, r: CHECKER_R });
  const label = count > cap ? { x, y: y + (drawn - 1) * dy, text: String(count) } : null;
  return { checkers, label };
}

function tray(side, count) {
  const rect = trayRect(side);
  const x = rect.x + 5;
  const width = SIDE_W - 10;
  const checkers = [];
  for (let i = 0; i < count; i++) {
    const y = side === "viewer" ? BOTTOM_Y - (i + 1) * SLAB : TOP_Y + i * SLAB;
    checkers.push({ x, y, width, height: SLAB });
  }
  const label =
    count > 0
      ? {
          x: TRAY_X + SIDE_W / 2,
          y: side === "viewer" ? MID_BOTTOM - 15 : MID_TOP + 15,
          text: String(count),
        }
      : null;
  return { checkers, label };
}

/**
 * Every stack of a board, ready to draw: both sides' checkers on the points, the bar and in
 * the trays. `viewer` and `opponent` are 26 counts each in their own numbering.
 *
 * @returns {Array<{side: "viewer"|"opponent", point: number, count: number, checkers: Array,
 *   label: object|null}>} `point` in the viewer's numbering for 1..24, 25 / 0 for that side's
 *   bar / tray; empty places are left out.
 */
export function layout(viewer, opponent) {
  checkBoard(viewer, "viewer");
  checkBoard(opponent, "opponent");
  const out = [];
  for (const [side, board] of [
    ["viewer", viewer],
    ["opponent", opponent],
  ]) {
    for (let own = 0; own <= 25; own++) {
      const count = board[own];
      if (!count) continue;
      const point = side === "viewer" ? own : otherSide(own);
      out.push({ side, point, count, ...stack(side, point, count) });
    }
  }
  return out;
}

/**
 * The dice of a side: squares in the middle band, the viewer's in the home (right) quarter and
 * the opponent's in the outer (left) quarter, as GNU Backgammon shows them.
 *
 * @returns {Array<{x: number, y: number, size: number, cx: number, cy: number}>} top-left
 *   corner, side and centre of each die, left to right.
 */
export function dicePositions(side, count = 2) {
  checkSide(side);
  if (!Number.isInteger(count) || count < 0 || count > 4) throw new RangeError(`${count} dice`);
  const centre = (side === "viewer" ? RIGHT_X : LEFT_X) + 3 * CHECKER;
  const gap = DIE + 16;
  const out = [];
  for (let i = 0; i < count; i++) {
    const cx = centre + (i - (count - 1) / 2) * gap;
    out.push({ x: cx - DIE / 2, y: MID_Y - DIE / 2, size: DIE, cx, cy: MID_Y });
  }
  return out;
}

/** The pips of a die face, as [x, y] fractions of the die's side (0..1). */
export function diePips(value) {
  const a = 0.25;
  const m = 0.5;
  const z = 0.75;
  const faces = {
    1: [[m, m]],
    2: [[a, a], [z, z]],
    3: [[a, a], [m, m], [z, z]],
    4: [[a, a], [z, a], [a, z], [z, z]],
    5: [[a, a], [z, a], [m, m], [a, z], [z, z]],
    6: [[a, a], [z, a], [a, m], [z, m], [a, z], [z, z]],
  };
  const pips = faces[value];
  if (!pips) throw new RangeError(`a die shows 1..6, not ${value}`);
  return pips;
}

/** The cube's square in the cube column: centred, or at its owner's end of the board. */
export function cubePosition(owner = null) {
  if (owner !== null) checkSide(owner);
  const cx = CUBE_X + SIDE_W / 2;
  const cy =
    owner === "viewer"
      ? BOTTOM_Y - CUBE / 2 - 6
      : owner === "opponent"
        ? TOP_Y + CUBE / 2 + 6
        : MID_Y;
  return { x: cx - CUBE / 2, y: cy - CUBE / 2, size: CUBE, cx, cy };
}

/** A chouette's cubes in the cube column, one small square each with its member's name under
 * it (`MINI_CUBE` and a label's line to a slot): the viewer's cubes (`owner` "viewer") stacked
 * up from the bottom end, the other side's down from the top, the centred ones around the
 * middle line between the two. `owners` is each cube's owner side (or null), in order; the
 * squares come back in the same order, each with its label's place.
 *
 * @returns {Array<{x: number, y: number, size: number, cx: number, cy: number, labelY: number}>}
 */
export function cubeStack(owners) {
  for (const o of owners) if (o !== null) checkSide(o);
  const n = owners.length;
  const room = BOTTOM_Y - TOP_Y;
  const slot = n ? Math.min(MINI_SLOT, room / n) : MINI_SLOT;
  const size = Math.min(MINI_CUBE, slot - MINI_LABEL);
  const cx = CUBE_X + SIDE_W / 2;
  const top = owners.filter((o) => o === "opponent").length;
  const bottom = owners.filter((o) => o === "viewer").length;
  const middle = n - top - bottom;
  // The centred group around the middle line, kept clear of the two ends' groups.
  let start = MID_Y - (middle * slot) / 2;
  start = Math.max(start, TOP_Y + top * slot);
  start = Math.min(start, BOTTOM_Y - bottom * slot - middle * slot);
  const seen = { opponent: 0, viewer: 0, centre: 0 };
  return owners.map((o) => {
    let slotTop;
    if (o === "opponent") slotTop = TOP_Y + seen.opponent++ * slot;
    else if (o === "viewer") slotTop = BOTTOM_Y - ++seen.viewer * slot;
    else slotTop = start + seen.centre++ * slot;
    const y = slotTop + (slot - size - MINI_LABEL) / 2;
    return { x: cx - size / 2, y, size, cx, cy: y + size / 2, labelY: y + size + MINI_LABEL / 2 };
  });
}

/**
 * The cubes a table view's game puts on the board, from the viewer's side (sides[0]): a
 * two-player table's one cube; in a chouette, a member of the team sees their own cube, and
 * the box (or anyone else) every member's. Each with its value (an offered cube the value
 * offered), its owner's side ("viewer", "opponent" or null when centred) and account,
 * whether a double on it is pending, and whether its game goes on.
 *
 * @param {object} game the `game` of `GET /tables/{id}` (with `sides` and `cubes`)
 * @param {string|null} viewerId the viewer's account id
 * @returns {Array<{member: string|null, value: number, owner: "viewer"|"opponent"|null,
 *   ownerId: string|null, offered: boolean, inGame: boolean}>}
 */
export function cubesFromView(game, viewerId = null) {
  const all = (game && game.cubes) || [];
  const mine = (game && game.sides && game.sides[0] && game.sides[0].players) || [];
  const own = all.filter((c) => c.member !== null && c.member !== undefined && c.member === viewerId);
  const shown = all.length > 1 && own.length ? own : all;
  return shown.map((c) => {
    const ownerId = c.owner === null || c.owner === undefined ? null : c.owner;
    return {
      member: c.member ?? null,
      value: c.pending ? c.pending.value : c.value,
      owner: ownerId === null ? null : mine.includes(ownerId) ? "viewer" : "opponent",
      ownerId,
      offered: Boolean(c.pending),
      inGame: c.in_game !== false,
    };
  });
}

/**
 * What is under a board coordinate.
 *
 * @returns {{kind: "point", point: number} | {kind: "bar"} | {kind: "tray", side: string} |
 *   {kind: "cube"} | null}
 */
export function regionAt(x, y) {
  if (!Number.isFinite(x) || !Number.isFinite(y) || y < TOP_Y || y >= BOTTOM_Y) return null;
  if (x >= BAR_X && x < RIGHT_X) return { kind: "bar" };
  if (x >= TRAY_X && x < TRAY_X + SIDE_W) {
    return { kind: "tray", side: y >= MID_Y ? "viewer" : "opponent" };
  }
  if (x >= CUBE_X && x < CUBE_X + SIDE_W) return { kind: "cube" };
  const top = y < MID_Y;
  if (x >= LEFT_X && x < BAR_X) {
    const col = Math.floor((x - LEFT_X) / CHECKER);
    return { kind: "point", point: top ? 13 + col : 12 - col };
  }
  if (x >= RIGHT_X && x < BOARD_RIGHT) {
    const col = Math.floor((x - RIGHT_X) / CHECKER);
    return { kind: "point", point: top ? 19 + col : 6 - col };
  }
  return null;
}

/**
 * Hit testing for clicks and drops, in the viewer's numbering: 1..24 a point, 25 the bar,
 * 0 the viewer's own tray (bearing off), null anything else (the opponent's tray included).
 */
export function pointAt(x, y) {
  const region = regionAt(x, y);
  if (region === null) return null;
  if (region.kind === "point") return region.point;
  if (region.kind === "bar") return BAR;
  if (region.kind === "tray" && region.side === "viewer") return OFF;
  return null;
}

/** A side's pip count: what it still has to travel (a checker on the bar counts 25). */
export function pipCount(board) {
  checkBoard(board, "board");
  let pips = 0;
  for (let p = 1; p <= 25; p++) pips += p * board[p];
  return pips;
}

/**
 * Turn a board sent relative to the player on roll into the viewer's side and the opponent's.
 * `onRoll`/`other` are the arrays of the side on roll and the other side; `viewerOnRoll` says
 * whether the viewer's side is the one on roll.
 */
export function orient(onRoll, other, viewerOnRoll) {
  checkBoard(onRoll, "on_roll");
  checkBoard(other, "other");
  return viewerOnRoll
    ? { viewer: [...onRoll], opponent: [...other] }
    : { viewer: [...other], opponent: [...onRoll] };
}

/**
 * The viewer's and the opponent's boards from a table view's `game`, and whether the viewer's
 * side is on roll (null when nobody is, as during the opening throw).
 *
 * Understands three shapes: `game.sides` (sides[0] is the viewer's side, `game.turn` an index
 * into sides); a chouette's `game.board.viewer_side`/`other_side` (with `game.turn` "box" or
 * "team"); a two-player table's `game.board.on_roll`/`other` (with `game.turn` the account on
 * roll, `seats` the table's seats). `viewerId` is the viewer's account id; a spectator (or
 * anyone not seated) sees the table from seat 0 or from the team.
 *
 * @param {object} game the `game` of `GET /tables/{id}`
 * @param {{viewerId?: string|null, seats?: Array<string|null>, box?: string|null}} table
 */
export function boardFromView(game, { viewerId = null, seats = [], box = null } = {}) {
  if (Array.isArray(game.sides)) {
    const [mine, theirs] = game.sides;
    checkBoard(mine.board, "sides[0].board");
    checkBoard(theirs.board, "sides[1].board");
    const turn = game.turn === 0 || game.turn === 1 ? game.turn === 0 : null;
    return { viewer: [...mine.board], opponent: [...theirs.board], viewerOnRoll: turn };
  }
  const board = game.board;
  if (board && "viewer_side" in board) {
    checkBoard(board.viewer_side, "viewer_side");
    checkBoard(board.other_side, "other_side");
    const viewerSide = viewerId !== null && viewerId === box ? "box" : "team";
    const turn = game.turn === "box" || game.turn === "team" ? game.turn === viewerSide : null;
    return { viewer: [...board.viewer_side], opponent: [...board.other_side], viewerOnRoll: turn };
  }
  if (board && "on_roll" in board) {
    const seated = seats.includes(viewerId) ? viewerId : (seats[0] ?? null);
    // Before the opening throw the side "on roll" is seat 0.
    const onRoll = game.turn ?? seats[0] ?? null;
    const sides = orient(board.on_roll, board.other, onRoll === seated);
    return { ...sides, viewerOnRoll: game.turn == null ? null : game.turn === seated };
  }
  throw new TypeError("the game has no board this client understands");
}

// -- checks ---------------------------------------------------------------------------------

function checkPoint(point) {
  if (!Number.isInteger(point) || point < 1 || point > 24) {
    throw new RangeError(`not a point (1..24): ${point}`);
  }
}

function checkPlace(point) {
  if (!Number.isInteger(point) || point < 0 || point > 25) {
    throw new RangeError(`not a place (0..25): ${point}`);
  }
}

function checkSide(side) {
  if (side !== "viewer" && side !== "opponent") {
    throw new RangeError(`a side is "viewer" or "opponent", not ${side}`);
  }
}

function checkBoard(board, name) {
  if (!Array.isArray(board) || board.length !== 26) {
    throw new TypeError(`${name}: a board is 26 counts (0 off, 1..24, 25 bar)`);
  }
  for (const n of board) {
    if (!Number.isInteger(n) || n < 0 || n > 15) {
      throw new TypeError(`${name}: a count is 0..15, not ${n}`);
    }
  }
}

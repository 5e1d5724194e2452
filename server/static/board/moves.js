// Move input without rules: the server lists every legal play, the page offers only steps
// that some listed play continues with, and sends the play's moves once the steps make one.
//
// The server sends the legal plays as a TREE of single-die steps (a throw's message and the
// table view's `game.play_tree`): a list of nodes, node 0 the start of the turn, each node a
// list of steps [from, to, hits, next], `next` the node the play goes on at or 0 when the play
// is complete after that step. Each path from node 0 to a step with `next` 0 is one route of a
// legal play; identical branches are sent once (the 1-1 with 2,220 plays is a few kilobytes).
// `[[]]`: no legal play. Every function below takes the tree, or the table view's list
// `legal_plays`, in which a legal play is:
//
//   {notation: "13/7 8/7", steps: [[[13, 7], [8, 7]], ...]}
//
// Each element of `steps` is one ROUTE: a way to make the play one die at a time, as single-die
// steps [from, to] (or [from, to, hits]) in the mover's numbering: 25 the bar, 0 off, 1..24 the
// points. A play of a non-double that moves one checker with both dice may have two routes
// (13/8/6 and 13/11/6). A turn with no legal move has an empty list (the engine's way), or
// the empty play: notation "" with one empty route.
//
// The user's steps so far (`made`) are [from, to] pairs in the same numbering. A board is
// {mover, opponent}: 26 counts each, in each side's own numbering, at the START of the turn;
// the functions apply `made` to it themselves.
//
// Nothing here judges legality: a step is offered when the server's list has a play with a
// route that contains every step made so far and this one, and a checker to move is there.

export const BAR = 25;
export const OFF = 0;

const PASS_WORDS = new Set([
  "",
  "-",
  "--",
  "pass",
  "none",
  "no move",
  "no moves",
  "no legal move",
  "cannot move",
]);

// -- plays and steps ---------------------------------------------------------------------------

function pointText(p) {
  return p === BAR ? "bar" : p === OFF ? "off" : String(p);
}

/**
 * The notation of a route (steps {from, to, hit}), as the server writes a play (GNU
 * Backgammon's way): moves highest first, one checker's moves joined into one chain that keeps
 * a point on the way only where it hit, a hit marked `*` once per point, identical chains
 * counted `(n)`. Formatting only: the hits are the route's own marks.
 */
export function routeNotation(route) {
  const hit = new Set(route.filter((s) => s.hit).map((s) => s.to));
  const mv = route.map((s) => [s.from, s.to]).sort((x, y) => y[0] - x[0] || y[1] - x[1]);
  const chains = [];
  const taken = mv.map(() => false);
  for (let i = 0; i < mv.length; i++) {
    if (taken[i]) continue;
    let [a, b] = mv[i];
    const chain = [a, b];
    for (let j = i + 1; j < mv.length; j++) {
      if (!taken[j] && mv[j][0] === b) {
        b = mv[j][1];
        if (hit.has(mv[j][0])) chain.push(b);
        else chain[chain.length - 1] = b;
        taken[j] = true;
      }
    }
    chains.push(chain);
  }
  const marked = new Set();
  const parts = [];
  for (let k = 0; k < chains.length; ) {
    const chain = chains[k];
    let n = 1;
    while (k + n < chains.length && chains[k + n].join() === chain.join()) n += 1;
    k += n;
    let text = pointText(chain[0]);
    for (const q of chain.slice(1, -1)) {
      text += `/${pointText(q)}*`;
      marked.add(q);
    }
    const last = chain[chain.length - 1];
    text += `/${pointText(last)}`;
    if (hit.has(last) && !marked.has(last)) {
      text += "*";
      marked.add(last);
    }
    if (n > 1) text += `(${n})`;
    parts.push(text);
  }
  return parts.join(" ");
}

/** Whether `plays` is the server's tree of steps (rather than a list of plays). */
function isTree(plays) {
  return Array.isArray(plays) && plays.length > 0 && Array.isArray(plays[0]);
}

/** The plays of a tree of steps, each with its routes (the paths of the tree that make it, in
 * the tree's order), named by their notation. */
function treePlays(tree) {
  const byName = new Map();
  const walk = (at, path, depth) => {
    const node = tree[at];
    if (!Array.isArray(node) || depth >= 4) throw new TypeError(`the tree has no node ${at}`);
    for (const edge of node) {
      if (!Array.isArray(edge) || edge.length !== 4 || !Number.isInteger(edge[3]) || edge[3] < 0) {
        throw new TypeError(`not a step [from, to, hits, next]: ${edge}`);
      }
      const next = [...path, checkStep(edge.slice(0, 3))];
      if (edge[3] === 0) {
        const notation = routeNotation(next);
        const play = byName.get(notation);
        if (play === undefined) byName.set(notation, { notation, routes: [next] });
        else play.routes.push(next);
      } else {
        walk(edge[3], next, depth + 1);
      }
    }
  };
  walk(0, [], 0);
  return [...byName.values()];
}

function checkStep(step, what = "step") {
  const ok =
    Array.isArray(step) &&
    (step.length === 2 || step.length === 3) &&
    Number.isInteger(step[0]) &&
    Number.isInteger(step[1]) &&
    step[0] >= 1 &&
    step[0] <= BAR &&
    step[1] >= OFF &&
    step[1] < step[0] &&
    (step.length === 2 || typeof step[2] === "boolean");
  if (!ok) throw new TypeError(`not a ${what} [from, to] with 0 <= to < from <= 25: ${step}`);
  return { from: step[0], to: step[1], hit: step[2] === true };
}

/**
 * A play as the server sends it, checked and in the form the other functions use:
 * `{notation, routes: [[{from, to, hit}, ...], ...]}`. A play without `steps` can still be
 * matched by its notation and made with one click, but not step by step.
 */
export function normalisePlay(play) {
  if (play === null || typeof play !== "object" || typeof play.notation !== "string") {
    throw new TypeError("a legal play is {notation, steps}");
  }
  const raw = play.routes ?? play.steps ?? [];
  if (!Array.isArray(raw)) throw new TypeError(`${play.notation}: steps must be a list of routes`);
  const routes = raw.map((route) => {
    if (!Array.isArray(route) || route.length > 4) {
      throw new TypeError(`${play.notation}: a route is a list of at most four steps`);
    }
    return route.map((s) => (s && typeof s === "object" && "from" in s ? s : checkStep(s)));
  });
  return { notation: play.notation, routes };
}

// The page asks about the same list on every click and hover: each list is read once (a list
// is the server's answer, never changed in place).
const normalised = new WeakMap();

function normalisePlays(plays) {
  if (!Array.isArray(plays)) throw new TypeError("the legal plays are a list or a tree");
  let out = normalised.get(plays);
  if (out === undefined) {
    out = isTree(plays) ? treePlays(plays) : plays.map(normalisePlay);
    normalised.set(plays, out);
  }
  return out;
}

function madeSteps(made) {
  if (!Array.isArray(made)) throw new TypeError("the steps made are a list");
  return made.map((s) => checkStep(s, "step made"));
}

const key = (s) => s.from * 32 + s.to;

/** What is left of `route` once `made` is taken out of it (as multisets), or null when `made`
 * is not part of it. */
function remainder(route, made) {
  const left = [...route];
  for (const m of made) {
    const i = left.findIndex((s) => key(s) === key(m));
    if (i < 0) return null;
    left.splice(i, 1);
  }
  return left;
}

/**
 * The plays (and their routes) that the steps made so far can still become.
 *
 * @returns {Array<{notation: string, route: Array, remaining: Array}>}
 */
export function candidates(plays, made) {
  const steps = madeSteps(made);
  const out = [];
  for (const play of normalisePlays(plays)) {
    for (const route of play.routes) {
      const remaining = remainder(route, steps);
      if (remaining !== null) out.push({ notation: play.notation, route, remaining });
    }
  }
  return out;
}

/** How many legal plays there are. */
export function playCount(plays) {
  return normalisePlays(plays).length;
}

/** The moves to send for the play written `notation` (one of its routes: an order in which
 * its steps can be made), as [from, to] pairs; null when no play has that notation. */
export function playMoves(plays, notation) {
  const found = normalisePlays(plays).find((p) => p.notation === notation);
  return found && found.routes.length ? found.routes[0].map((s) => [s.from, s.to]) : null;
}

/** The notations of the plays that the steps made so far can still become. */
export function remainingPlays(plays, made) {
  return [...new Set(candidates(plays, made).map((c) => c.notation))];
}

// -- the board -----------------------------------------------------------------------------------

function checkBoard(board) {
  const ok = (a) =>
    Array.isArray(a) && a.length === 26 && a.every((n) => Number.isInteger(n) && n >= 0);
  if (!board || !ok(board.mover) || !ok(board.opponent)) {
    throw new TypeError("a board is {mover, opponent}: 26 counts each");
  }
}

/**
 * The board after some steps, for showing a partial move: each step moves one of the mover's
 * checkers (to 0: borne off); a step onto a point where the opponent has a single checker
 * sends that checker to the opponent's bar.
 *
 * @returns {{mover: number[], opponent: number[], hits: number[]}} new arrays; `hits` lists
 *   the indices of the steps that hit.
 * @throws {RangeError} a step from a place where the mover has no checker.
 */
export function applySteps(board, steps) {
  checkBoard(board);
  const mover = [...board.mover];
  const opponent = [...board.opponent];
  const hits = [];
  madeSteps(steps).forEach((s, i) => {
    if (mover[s.from] < 1) throw new RangeError(`no checker to move from ${s.from}`);
    mover[s.from] -= 1;
    mover[s.to] += 1;
    if (s.to !== OFF && opponent[25 - s.to] === 1) {
      opponent[25 - s.to] = 0;
      opponent[BAR] += 1;
      hits.push(i);
    }
  });
  return { mover, opponent, hits };
}

/**
 * The places (mover's numbering, highest first; 25 the bar) from which a next step may start:
 * a step of a still-possible route starts there and a checker of the mover stands there.
 */
export function sources(plays, board, made) {
  const now = applySteps(board, made);
  const found = new Set();
  for (const c of candidates(plays, made)) {
    for (const s of c.remaining) if (now.mover[s.from] > 0) found.add(s.from);
  }
  return [...found].sort((a, b) => b - a);
}

/**
 * Where a checker from `from` may go next: one die (one step of a still-possible route), or
 * several dice (steps of ONE still-possible route chained by the same checker).
 *
 * @returns {Array<{to: number, steps: number[][], hits: boolean}>} each destination once, by
 *   its fewest steps (between equal paths, one that hits nothing); nearest first. `steps` are
 *   the [from, to] pairs to append to `made`; `hits` whether the path hits a checker.
 */
export function destinations(plays, board, made, from) {
  const now = applySteps(board, made);
  if (!Number.isInteger(from) || now.mover[from] === undefined || now.mover[from] < 1) return [];
  const best = new Map();
  const consider = (path) => {
    const to = path.at(-1).to;
    const pairs = path.map((s) => [s.from, s.to]);
    const hits = applySteps(now, pairs).hits.length > 0;
    const seen = best.get(to);
    if (
      seen === undefined ||
      pairs.length < seen.steps.length ||
      (pairs.length === seen.steps.length && seen.hits && !hits)
    ) {
      best.set(to, { to, steps: pairs, hits });
    }
  };
  const walk = (at, left, path) => {
    const tried = new Set();
    left.forEach((s, i) => {
      if (s.from !== at || tried.has(key(s))) return;
      tried.add(key(s));
      const next = [...path, s];
      consider(next);
      if (s.to !== OFF) walk(s.to, [...left.slice(0, i), ...left.slice(i + 1)], next);
    });
  };
  for (const c of candidates(plays, made)) walk(from, c.remaining, []);
  return [...best.values()].sort((a, b) => a.steps.length - b.steps.length || b.to - a.to);
}

/** The steps that take a checker from `from` to `to` (a click on a source, then on a
 * destination; or a drag), or null when no still-possible route allows it. */
export function stepsTo(plays, board, made, from, to) {
  const found = destinations(plays, board, made, from).find((d) => d.to === to);
  return found ? found.steps : null;
}

/**
 * Whether the steps made are a whole play: the notation of the play whose route they make
 * (as a multiset), or null. The empty play is complete with no steps: its notation is "",
 * so compare the answer with null.
 */
export function completed(plays, made) {
  const found = candidates(plays, made).find((c) => c.remaining.length === 0);
  return found ? found.notation : null;
}

/** The steps made, less the last one (undo within the turn). */
export function undo(made) {
  return made.slice(0, -1);
}

/** The notation of the only legal play (a forced play, or the empty play), which the page may
 * offer to make with one click; null when there is a choice or nothing to play. */
export function onlyPlay(plays) {
  const all = normalisePlays(plays);
  return all.length === 1 ? all[0].notation : null;
}

/** Whether the player cannot move: no legal play, or only the empty one. */
export function cannotMove(plays) {
  const all = normalisePlays(plays);
  return (
    all.length === 0 ||
    (all.length === 1 &&
      PASS_WORDS.has(all[0].notation.trim()) &&
      all[0].routes.every((r) => r.length === 0))
  );
}

// -- typed notation ----------------------------------------------------------------------------

const POINT = "(?:[0-9]{1,3}|bar|b|off|o)";
const CHAIN = new RegExp(`^(${POINT}\\*?(?:/${POINT}\\*?)+)(?:\\(([0-9]{1,3})\\))?(\\*?)$`);
const STEP = new RegExp(`(${POINT})(\\*?)`, "g");

function pointValue(word) {
  if (word === "bar" || word === "b") return BAR;
  if (word === "off" || word === "o") return OFF;
  const n = Number(word);
  return n >= OFF && n <= BAR ? n : null;
}

/**
 * Read a typed play, the way GNU Backgammon and the usual sites write one: `/` or `-` between
 * points, `bar`/`b`/`25` and `off`/`o`/`0`, any case, moves separated by spaces or commas,
 * repeats `(n)`, optional `*` marks, a checker's moves run together (`24/18/13`).
 *
 * @returns {{pass: true} | {pass: false, chains: Array<{points: number[], marks: boolean[],
 *   count: number}>, segments: number[][]} | null} `segments` are the written hops
 *   [from, to], repeats expanded; null when the text is not notation.
 */
export function parseNotation(text) {
  if (typeof text !== "string") return null;
  let t = text.toLowerCase().trim().replace(/\s+/g, " ");
  if (PASS_WORDS.has(t)) return { pass: true };
  t = t
    .replace(/\s*[/-]\s*/g, "/")
    .replace(/\s*\(\s*([0-9]+)\s*\)/g, "($1)")
    .replace(/\s+\*/g, "*");
  const chains = [];
  const segments = [];
  for (const word of t.split(/[\s,]+/).filter(Boolean)) {
    const m = CHAIN.exec(word);
    if (!m) return null;
    const points = [];
    const marks = [];
    for (const [, p, star] of m[1].matchAll(STEP)) {
      const value = pointValue(p);
      if (value === null) return null;
      points.push(value);
      marks.push(star === "*");
    }
    if (m[3]) marks[marks.length - 1] = true;
    const count = m[2] === undefined ? 1 : Number(m[2]);
    if (count < 1 || count > 4) return null;
    for (let i = 1; i < points.length; i++) if (points[i] >= points[i - 1]) return null;
    chains.push({ points, marks, count });
    for (let n = 0; n < count; n++) {
      for (let i = 1; i < points.length; i++) segments.push([points[i - 1], points[i]]);
    }
  }
  if (segments.length === 0 || segments.length > 4 * 4) return null;
  return { pass: false, chains, segments };
}

/** One canonical spelling of a play's text, for comparing two texts: chains in a fixed order,
 * repeats written out, points as `bar`/`off`/numbers; with `marks` false the `*` are dropped.
 * Null when the text is not notation. */
export function canonicalNotation(text, { marks = true } = {}) {
  const parsed = parseNotation(text);
  if (parsed === null) return null;
  if (parsed.pass) return "";
  const words = [];
  for (const chain of parsed.chains) {
    const word = chain.points
      .map((p, i) => pointText(p) + (marks && chain.marks[i] ? "*" : ""))
      .join("/");
    for (let n = 0; n < chain.count; n++) words.push(word);
  }
  return words.sort().join(" ");
}

/** Whether written hops can be made of exactly the steps of a route: each hop a chain of steps
 * of one checker, every step used once. */
function covers(segments, route) {
  const used = route.map(() => false);
  const hop = (i) => (i === segments.length ? used.every(Boolean) : walk(segments[i][0], i));
  const walk = (at, i) => {
    const end = segments[i][1];
    if (at === end) return hop(i + 1);
    for (let k = 0; k < route.length; k++) {
      const s = route[k];
      if (used[k] || s.from !== at || s.to < end) continue;
      used[k] = true;
      if (walk(s.to, i)) return true;
      used[k] = false;
    }
    return false;
  };
  return hop(0);
}

/**
 * Match typed notation against the server's legal plays. The client does not judge: when the
 * text names exactly one listed play, that play's notation is the answer; otherwise the page
 * sends the text as typed and shows the server's answer.
 *
 * A text names a play when its hops can be made of one of the play's routes (so `24/18 18/13`,
 * `24/13` and `24-13` all name the play written `24/13`, and `13/7(2)` names `13/7(2)`). When
 * several plays fit, the one written the same way wins (with its `*` marks, then without):
 * with 5-2 and a blot on 11, `13/6` is the play that passes by 8 and hits nothing, while
 * `13/11/6` (or `13/11* 11/6`) can only be the play that hits on 11.
 *
 * @returns {{play: string|null, candidates: string[], parsed: boolean}}
 */
export function matchNotation(plays, text) {
  const all = normalisePlays(plays);
  const parsed = parseNotation(text);
  if (parsed === null) return { play: null, candidates: [], parsed: false };
  let fits;
  if (parsed.pass) {
    fits = all.filter((p) => p.notation === "" || p.routes.some((r) => r.length === 0));
  } else {
    const exact = canonicalNotation(text, { marks: false });
    fits = all.filter((p) =>
      p.routes.length > 0
        ? p.routes.some((r) => covers(parsed.segments, r))
        : canonicalNotation(p.notation, { marks: false }) === exact,
    );
  }
  const names = fits.map((p) => p.notation);
  if (fits.length === 1) return { play: names[0], candidates: names, parsed: true };
  for (const marks of [true, false]) {
    const typed = canonicalNotation(text, { marks });
    const same = fits.filter((p) => canonicalNotation(p.notation, { marks }) === typed);
    if (same.length === 1) return { play: same[0].notation, candidates: names, parsed: true };
  }
  return { play: null, candidates: names, parsed: true };
}

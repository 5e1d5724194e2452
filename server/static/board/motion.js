// Checkers in motion (server/static/board/board.js): when the board drawn next differs from the one
// drawn before by a play's few checkers (and the blots it hits), each moved checker slides from
// where it stood to where it now stands.
//
// The drawing is always exactly the position it was given: a moving checker is drawn at its new
// place at once, and only a passing transform (the Web Animations API, no fill) starts it from
// the old one, so an animation cut short, finished or never run leaves nothing behind. A
// drawing of other counts first finishes the flights still under way (they never queue up
// behind each other); one of the same counts (a checker chosen) lets them go on. Nothing waits
// for them: the board's places take clicks and keys throughout. Under
// `prefers-reduced-motion: reduce` nothing moves.
//
// Which checker went where is guessed from the two boards alone (the page keeps no rules): for
// each side, the places that lost checkers and those that gained some, both taken from the
// farthest (the bar) to the nearest (borne off), paired in that order.

import * as g from "./geometry.js";

export const DURATION_MS = 200;
const MOST = 4; // a play moves at most four checkers, and hits at most four

/**
 * The checkers that moved from `before` to `after` (each `{viewer, opponent}`, 26 counts a side
 * in its own numbering): `[{side, from, to, height, landing}]`, `from` and `to` in the viewer's
 * numbering (the drawing's), `height` the checker's place in its old stack (1 its first) and
 * `landing` in its new one. None when the two are not a few checkers apart on either side (a
 * new game, a board drawn for the first time).
 */
export function flights(before, after) {
  const out = [];
  for (const side of ["viewer", "opponent"]) {
    const was = before[side];
    const now = after[side];
    const left = [];
    const came = [];
    for (let own = 25; own >= 0; own--) {
      const place = side === "viewer" ? own : g.otherSide(own);
      // Checkers leave a stack from its top, and land on a stack from its top.
      for (let k = was[own]; k > now[own]; k--) left.push({ place, height: k });
      for (let k = was[own]; k < now[own]; k++) came.push({ place, height: k + 1 });
    }
    if (left.length !== came.length || left.length > MOST) return [];
    left.forEach((l, i) => out.push({ side, from: l.place, to: came[i].place, height: l.height, landing: came[i].height }));
  }
  return out;
}

/** Where the `height`-th checker of a side's stack on `place` is drawn (its centre; a stack
 * taller than the drawing shows sits on its last drawn checker). */
export function spot(side, place, height) {
  const drawn = g.stack(side, place, height).checkers;
  const c = drawn[drawn.length - 1];
  return "cx" in c ? { x: c.cx, y: c.cy } : { x: c.x + c.width / 2, y: c.y + c.height / 2 };
}

/** Whether the reader asked for less motion. */
export function reduced() {
  return Boolean(globalThis.matchMedia && globalThis.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/** Whether two boards hold the same counts. */
function same(a, b) {
  return ["viewer", "opponent"].every((side) => a[side].every((n, i) => n === b[side][i]));
}

function keyframes(f) {
  const a = spot(f.side, f.from, f.height);
  const b = spot(f.side, f.to, f.landing);
  return [{ transform: `translate(${a.x - b.x}px, ${a.y - b.y}px)` }, { transform: "translate(0px, 0px)" }];
}

/** The board's flights under way. */
export class Motion {
  constructor() {
    this.running = new Map(); // Animation -> its flight
    this.held = false;
  }

  /**
   * The board was drawn again, from the counts `before` (null: the first drawing) to `after`;
   * `element(side, place, landing)` finds the element now drawn for a checker. A few checkers
   * apart: they fly, and the flights under way before end at once (at their places). The same
   * counts (a checker chosen, a button's state): the flights under way go on, on the elements
   * drawn now. Otherwise (a new game): nothing moves.
   */
  redrawn(before, after, element) {
    if (before && same(before, after)) {
      this.carry(element);
      return;
    }
    this.settle();
    if (before && !this.held && !reduced()) this.fly(flights(before, after), element);
  }

  /** Finish every flight under way (its checker is at its place already). */
  settle() {
    for (const a of [...this.running.keys()]) a.finish();
    this.running.clear();
  }

  fly(list, element, at = 0) {
    for (const f of list) {
      const el = element(f.side, f.to, f.landing);
      if (!el || typeof el.animate !== "function") continue;
      const flight = el.animate(keyframes(f), { duration: DURATION_MS, easing: "ease-out" });
      if (at) flight.currentTime = at;
      this.running.set(flight, f);
      const done = () => this.running.delete(flight);
      flight.onfinish = done;
      flight.oncancel = done;
    }
  }

  /** Each flight under way moves to the element drawn for its checker now, where it was. */
  carry(element) {
    for (const [old, f] of [...this.running]) {
      const at = old.currentTime;
      this.running.delete(old);
      old.cancel();
      this.fly([f], element, at);
    }
  }
}

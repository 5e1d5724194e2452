// The SVG board: drawn from the viewer's side with geometry.js, every point a focusable
// control (roving tabindex, arrow keys), clicks, drags and Enter/Space reported to the page.
// Nothing here knows the rules: the page says which places are sources and destinations.

import * as g from "./geometry.js";
import { s } from "../lib/dom.js";
import { Motion } from "./motion.js";

const BOTTOM_ROW = [12, 11, 10, 9, 8, 7, 25, 6, 5, 4, 3, 2, 1, 0];
const TOP_ROW = [13, 14, 15, 16, 17, 18, 25, 19, 20, 21, 22, 23, 24, 0];

function placeName(p) {
  return p === g.BAR ? "Bar" : p === g.OFF ? "Borne off" : `Point ${p}`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * A board in `container`. `onActivate(place)` is called when a place is clicked or chosen with
 * Enter/Space; `onDrag(from, to)` when a checker is dragged from one place to another.
 */
export class Board {
  constructor(container, { onActivate, onDrag } = {}) {
    this.onActivate = onActivate || (() => {});
    this.onDrag = onDrag || (() => {});
    this.model = null;
    this.focusPlace = 24;
    this.svg = s("svg", {
      viewBox: g.VIEWBOX,
      class: "board",
      role: "group",
      "aria-roledescription": "backgammon board",
      "aria-label": "Backgammon board",
      "data-testid": "board",
    });
    this.svg.append(this.frame());
    this.marks = s("g", { class: "marks", "aria-hidden": "true" });
    this.checkers = s("g", { class: "checkers", "aria-hidden": "true" });
    this.extras = s("g", { class: "extras" });
    this.hits = s("g", { class: "hits" });
    this.ghost = s("g", { class: "ghost", "aria-hidden": "true" });
    this.svg.append(this.marks, this.checkers, this.extras, this.hits, this.ghost);
    this.places = new Map();
    for (let p = 0; p <= 25; p++) this.hits.append(this.hitArea(p));
    this.dragging = null;
    this.motion = new Motion(); // checkers sliding to their new places (motion.js)
    this.shown = null; // the counts last drawn, {viewer, opponent}
    this.svg.addEventListener("pointerdown", (ev) => this.pointerDown(ev));
    this.svg.addEventListener("pointermove", (ev) => this.pointerMove(ev));
    this.svg.addEventListener("pointerup", (ev) => this.pointerUp(ev));
    this.svg.addEventListener("pointercancel", () => this.endDrag());
    container.append(this.svg);
  }

  frame() {
    const out = s("g", { class: "frame", "aria-hidden": "true" });
    out.append(s("rect", { x: 0, y: 0, width: g.WIDTH, height: g.HEIGHT, class: "wood" }));
    for (const [x, w] of [
      [g.LEFT_X, 6 * g.CHECKER],
      [g.RIGHT_X, 6 * g.CHECKER],
    ]) {
      out.append(s("rect", { x, y: g.TOP_Y, width: w, height: g.BOTTOM_Y - g.TOP_Y, class: "felt" }));
    }
    out.append(s("rect", { ...g.BAR_RECT, class: "bar" }));
    for (const side of ["viewer", "opponent"]) out.append(s("rect", { ...g.trayRect(side), class: "tray" }));
    out.append(
      s("rect", { x: g.CUBE_X, y: g.TOP_Y, width: g.SIDE_W, height: g.BOTTOM_Y - g.TOP_Y, class: "tray" }),
    );
    for (let p = 1; p <= 24; p++) {
      out.append(s("polygon", { points: g.pointPolygon(p), class: `point ${p % 2 ? "odd" : "even"}` }));
      const l = g.pointLabel(p);
      out.append(s("text", { x: l.x, y: l.y, class: "point-number", "dominant-baseline": "central", "text-anchor": "middle" }, l.text));
    }
    return out;
  }

  rectOf(p) {
    if (p === g.BAR) return g.BAR_RECT;
    if (p === g.OFF) return g.trayRect("viewer");
    return g.pointRect(p);
  }

  hitArea(p) {
    const r = this.rectOf(p);
    const el = s("rect", {
      ...r,
      class: "hit",
      role: "button",
      tabindex: p === this.focusPlace ? 0 : -1,
      "data-testid": `point-${p}`,
      "data-point": p,
      "aria-label": placeName(p),
    });
    el.addEventListener("keydown", (ev) => this.keyDown(ev, p));
    el.addEventListener("focus", () => {
      this.focusPlace = p;
      this.rove();
    });
    this.places.set(p, el);
    return el;
  }

  rove() {
    for (const [p, el] of this.places) el.setAttribute("tabindex", p === this.focusPlace ? "0" : "-1");
  }

  focus(p) {
    const el = this.places.get(p);
    if (el) {
      this.focusPlace = p;
      this.rove();
      el.focus();
    }
  }

  keyDown(ev, p) {
    const move = (row, d) => {
      const i = row.indexOf(p);
      if (i < 0) return null;
      return row[Math.max(0, Math.min(row.length - 1, i + d))];
    };
    const top = p === g.BAR ? true : p === g.OFF ? false : p >= 13;
    const row = top ? TOP_ROW : BOTTOM_ROW;
    let next = null;
    switch (ev.key) {
      case "ArrowLeft":
        next = move(row, -1);
        break;
      case "ArrowRight":
        next = move(row, 1);
        break;
      case "ArrowUp":
        next = p === g.BAR ? g.BAR : p === g.OFF ? 24 : p <= 12 ? 25 - p : p;
        break;
      case "ArrowDown":
        next = p === g.BAR ? g.BAR : p === g.OFF ? 0 : p >= 13 ? 25 - p : p;
        break;
      case "Home":
        next = g.BAR;
        break;
      case "End":
        next = g.OFF;
        break;
      case "Enter":
      case " ":
        ev.preventDefault();
        this.onActivate(p);
        return;
      case "Escape":
        this.onActivate(null);
        return;
      default:
        return;
    }
    ev.preventDefault();
    if (next !== null) this.focus(next);
  }

  toBoard(ev) {
    const pt = this.svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const ctm = this.svg.getScreenCTM();
    return ctm ? pt.matrixTransform(ctm.inverse()) : { x: NaN, y: NaN };
  }

  placeAt(ev) {
    const target = ev.target.closest && ev.target.closest("[data-point]");
    if (target && this.svg.contains(target)) return Number(target.dataset.point);
    const { x, y } = this.toBoard(ev);
    return g.pointAt(x, y);
  }

  pointerDown(ev) {
    if (ev.button !== 0 || !this.model || !this.model.interactive) return;
    const from = this.placeAt(ev);
    if (from === null) return;
    this.dragging = { from, x: ev.clientX, y: ev.clientY, moved: false, id: ev.pointerId };
    if (this.model.sources.has(from)) {
      try {
        this.svg.setPointerCapture(ev.pointerId);
      } catch {
        // Capture is a nicety: without it the drop is still found from the coordinates.
      }
    }
    ev.preventDefault();
  }

  pointerMove(ev) {
    const d = this.dragging;
    if (!d || d.id !== ev.pointerId) return;
    if (!d.moved && Math.hypot(ev.clientX - d.x, ev.clientY - d.y) < 6) return;
    if (!this.model.sources.has(d.from)) return;
    d.moved = true;
    const { x, y } = this.toBoard(ev);
    this.ghost.replaceChildren(this.checker("viewer", x, y, "dragged"));
  }

  pointerUp(ev) {
    const d = this.dragging;
    if (!d || d.id !== ev.pointerId) return;
    this.endDrag();
    if (d.moved) {
      const { x, y } = this.toBoard(ev);
      const to = g.pointAt(x, y);
      if (to !== null && to !== d.from) {
        // The hand carried that checker there: it does not fly there again.
        this.motion.held = true;
        try {
          this.onDrag(d.from, to);
        } finally {
          this.motion.held = false;
        }
      }
      return;
    }
    this.focus(d.from);
    this.onActivate(d.from);
  }

  endDrag() {
    this.dragging = null;
    this.ghost.replaceChildren();
  }

  checker(side, cx, cy, extra = "") {
    const group = s("g", { class: `checker ${side} ${extra}` });
    group.append(s("circle", { cx, cy, r: g.CHECKER_R }));
    // The opponent's checkers carry an inner ring: the two sides differ by shape, not colour only.
    if (side === "opponent") group.append(s("circle", { cx, cy, r: g.CHECKER_R * 0.55, class: "ring" }));
    return group;
  }

  /**
   * Draw a position. `model`: {viewer, opponent (26 counts each, own numbering), dice: {values,
   * side} | null, cube: {value, owner: "viewer"|"opponent"|null} | null, or cubes: [cube...] with
   * {member, ownerId, inGame, name} each, names: {viewer,
   * opponent}, interactive, sources: Set, destinations: Map(place -> info), selected}.
   */
  draw(model) {
    this.model = model;
    const { viewer, opponent } = model;
    const before = this.shown;
    this.shown = { viewer: [...viewer], opponent: [...opponent] };
    const stacks = new Map(); // "side place" -> the elements drawn for that stack
    this.checkers.replaceChildren();
    this.marks.replaceChildren();
    this.extras.replaceChildren();
    for (const st of g.layout(viewer, opponent)) {
      const drawn = st.checkers.map((c) =>
        st.point === g.OFF ? s("rect", { ...c, rx: 3, class: `slab ${st.side}` }) : this.checker(st.side, c.cx, c.cy),
      );
      this.checkers.append(...drawn);
      stacks.set(`${st.side} ${st.point}`, drawn);
      if (st.label) {
        this.checkers.append(
          s("text", { x: st.label.x, y: st.label.y, class: `count ${st.side}`, "text-anchor": "middle", "dominant-baseline": "central" }, st.label.text),
        );
      }
    }
    // The checkers that moved since the last drawing slide to their places (motion.js).
    this.motion.redrawn(before, this.shown, (side, place, landing) => {
      const drawn = stacks.get(`${side} ${place}`);
      return drawn ? drawn[Math.min(landing, drawn.length) - 1] : null;
    });
    // Sources: a dashed outline; the selected source: a thick solid outline; destinations: a
    // dotted ring where the checker would land. Shapes, so colour is never the only signal.
    for (const p of model.sources) this.marks.append(s("rect", { ...this.rectOf(p), class: "mark source" }));
    if (model.selected !== null && model.selected !== undefined) {
      this.marks.append(s("rect", { ...this.rectOf(model.selected), class: "mark selected" }));
    }
    for (const p of model.destinations.keys()) {
      const r = this.rectOf(p);
      this.marks.append(s("rect", { ...r, class: "mark destination" }));
      const cx = r.x + r.width / 2;
      const n = p === g.OFF || p === g.BAR ? 0 : viewer[p];
      let cy;
      if (p === g.OFF) cy = r.y + r.height / 2;
      else if (p >= 13) cy = g.TOP_Y + g.CHECKER / 2 + Math.min(n, g.STACK - 1) * g.CHECKER;
      else cy = g.BOTTOM_Y - g.CHECKER / 2 - Math.min(n, g.STACK - 1) * g.CHECKER;
      this.extras.append(s("circle", { cx, cy, r: g.CHECKER_R, class: "landing", "aria-hidden": "true" }));
    }
    this.drawDice(model.dice);
    // One cube as the big square; a chouette's several (the box's view) as small ones.
    const cubes = model.cubes || (model.cube ? [model.cube] : []);
    if (cubes.length === 1) this.drawCube(cubes[0]);
    else if (cubes.length > 1) this.drawMiniCubes(cubes);
    this.label(model);
  }

  drawDice(dice) {
    if (!dice || !dice.values || !dice.values.length) return;
    const side = dice.side || "viewer";
    const spots = g.dicePositions(side, dice.values.length);
    const group = s("g", { class: `dice ${side}`, "data-testid": "board-dice", "aria-hidden": "true" });
    dice.values.forEach((v, i) => {
      const d = spots[i];
      const used = dice.used && dice.used[i];
      const die = s("g", { class: `die${used ? " used" : ""}` });
      die.append(s("rect", { x: d.x, y: d.y, width: d.size, height: d.size, rx: 7 }));
      for (const [fx, fy] of g.diePips(v)) {
        die.append(s("circle", { cx: d.x + fx * d.size, cy: d.y + fy * d.size, r: d.size / 11, class: "pip" }));
      }
      if (used) die.append(s("line", { x1: d.x + 4, y1: d.y + d.size - 4, x2: d.x + d.size - 4, y2: d.y + 4, class: "strike" }));
      group.append(die);
    });
    this.extras.append(group);
  }

  drawCube(cube) {
    if (!cube) return;
    const c = g.cubePosition(cube.owner);
    const group = s("g", { class: `cube${cube.offered ? " offered" : ""}`, "data-testid": "board-cube", "aria-hidden": "true" });
    group.append(s("rect", { x: c.x, y: c.y, width: c.size, height: c.size, rx: 6 }));
    const shown = cube.owner === null && cube.value === 1 && !cube.offered ? 64 : cube.value;
    group.append(s("text", { x: c.cx, y: c.cy, "text-anchor": "middle", "dominant-baseline": "central" }, String(shown)));
    this.extras.append(group);
  }

  /** Several members' cubes (`{member, value, owner, ownerId, offered, inGame, name}`), each a
   * small square in the cube column at its owner's end (or centred), its member's name under
   * it; data attributes say the member, value and owner for anyone reading the page. */
  drawMiniCubes(cubes) {
    const spots = g.cubeStack(cubes.map((c) => c.owner));
    const all = s("g", { class: "cubes", "data-testid": "board-cubes", "aria-hidden": "true" });
    cubes.forEach((cube, i) => {
      const c = spots[i];
      const group = s("g", {
        class: `cube mini${cube.offered ? " offered" : ""}${cube.inGame === false ? " out" : ""}`,
        "data-testid": `board-cube-${cube.member}`,
        "data-member": cube.member ?? "",
        "data-value": cube.value,
        "data-owner": cube.ownerId ?? "",
        "data-side": cube.owner ?? "centre",
      });
      const name = cube.name || "";
      if (name) group.append(s("title", {}, `${name}'s cube at ${cube.value}`));
      group.append(s("rect", { x: c.x, y: c.y, width: c.size, height: c.size, rx: 5 }));
      const shown = cube.owner === null && cube.value === 1 && !cube.offered ? 64 : cube.value;
      group.append(s("text", { x: c.cx, y: c.cy, class: "value", "text-anchor": "middle", "dominant-baseline": "central" }, String(shown)));
      const short = name.length > 7 ? `${name.slice(0, 6)}\u2026` : name;
      group.append(s("text", { x: c.cx, y: c.labelY, class: "cube-name", "text-anchor": "middle", "dominant-baseline": "central" }, short));
      all.append(group);
    });
    this.extras.append(all);
  }

  label(model) {
    const { viewer, opponent, names = {} } = model;
    const you = names.viewer || "your side";
    const them = names.opponent || "the other side";
    for (const [p, el] of this.places) {
      let text = placeName(p);
      if (p === g.BAR) {
        text += `: ${plural(viewer[25], "checker")} of ${you}, ${plural(opponent[25], "checker")} of ${them}`;
      } else if (p === g.OFF) {
        text += `: ${plural(viewer[0], "checker")} of ${you}`;
      } else if (viewer[p]) {
        text += `: ${plural(viewer[p], "checker")} of ${you}`;
      } else if (opponent[25 - p]) {
        text += `: ${plural(opponent[25 - p], "checker")} of ${them}`;
      } else text += ": empty";
      if (model.selected === p) text += "; selected, choose where to move it";
      else if (model.sources.has(p)) text += "; can move from here";
      if (model.destinations.has(p)) text += "; can move here";
      el.setAttribute("aria-label", text);
      el.classList.toggle("is-source", model.sources.has(p));
      el.classList.toggle("is-destination", model.destinations.has(p));
      if (model.selected === p) el.setAttribute("aria-pressed", "true");
      else el.removeAttribute("aria-pressed");
    }
  }
}

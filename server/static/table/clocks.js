// Clocks and presence beside each player's name (docs/rules.md §10).
//
// A clock is drawn from the view: its delay and reserve left at the view's `now` (the server's
// time). The page keeps the offset between the server's clock and the browser's, and each
// second redraws the running clocks: the delay counting down first, then the reserve. Nothing
// here speaks each second: the clocks are plain text, not a live region.

import { h } from "../lib/dom.js";

/** m:ss of a number of milliseconds (rounded up: a clock shows 0:00 only once run out). */
export function minutes(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A clock's delay and reserve left `elapsed` ms after its view was made. */
export function left(clock, elapsed) {
  if (!clock.running) return { delay: 0, reserve: clock.reserve_ms };
  const e = Math.max(0, elapsed);
  return {
    delay: Math.max(0, clock.delay_ms - e),
    reserve: Math.max(0, clock.reserve_ms - Math.max(0, e - clock.delay_ms)),
  };
}

/** The words of a clock: "2:00" when it stands, "0:08 + 2:00" in the delay, "1:53" after it. */
export function clockWords(clock, elapsed) {
  const { delay, reserve } = left(clock, elapsed);
  if (!clock.running) return minutes(reserve);
  return delay > 0 ? `${minutes(delay)} + ${minutes(reserve)}` : minutes(reserve);
}

/** A clock as shown beside a name: a stopwatch, then its time in a span the ticker refreshes
 * (`data-clock-time`). The stopwatch is drawn by the style sheet, not a font's glyph: U+23F1 is
 * an empty box where no installed font has it (many Linux desktops). */
function clockBody(clock, elapsed) {
  return [
    h("span", { class: "clock-icon", "aria-hidden": "true" }),
    h("span", { "data-clock-time": "" }, clockWords(clock, elapsed)),
  ];
}

/** The clock of `player` in `view` as a span the ticker refreshes (null when there is none). */
export function clockSpan(view, player, elapsed) {
  const clock = (view.clocks || []).find((c) => c.player === player);
  if (!clock) return null;
  return h(
    "span",
    {
      class: `clock${clock.running ? " running" : ""}`,
      "data-testid": `clock-${player}`,
      "data-clock": player,
      "data-running": String(clock.running),
      title: clock.running ? "Time left: the delay of this decision, then the reserve" : "Reserve left",
    },
    ...clockBody(clock, elapsed),
  );
}

/** Refresh every clock span under `root` (once a second while the page is open). */
export function refreshClocks(root, view, elapsed) {
  if (!view) return;
  const byPlayer = new Map((view.clocks || []).map((c) => [c.player, c]));
  for (const el of root.querySelectorAll("[data-clock]")) {
    const clock = byPlayer.get(el.dataset.clock);
    const time = el.querySelector("[data-clock-time]");
    if (clock && time) time.textContent = clockWords(clock, elapsed);
  }
}

/** The table's own clock (an overdue opening or line throw, thrown by the server). */
export function tableClockLine(view, elapsed) {
  const clock = (view.clocks || []).find((c) => c.player === "" && c.running);
  if (!clock) return null;
  return h(
    "p",
    { class: "muted table-clock", "data-testid": "clock-table" },
    "The dice are thrown for you in ",
    h("span", { class: "clock", "data-clock": "" }, ...clockBody(clock, elapsed)),
    " if nobody throws.",
  );
}

/** A mark beside a player's name: connected or not, with words for screen readers. */
export function presenceMark(player, connected, name) {
  return h(
    "span",
    {
      class: `presence ${connected ? "on" : "off"}`,
      "data-testid": `presence-${player}`,
      "data-connected": String(connected),
      role: "img",
      "aria-label": connected ? `${name} is connected` : `${name} is not connected`,
      title: connected ? "Connected" : "Not connected",
    },
    connected ? "\u25CF" : "\u25CB",
  );
}

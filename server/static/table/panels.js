/* The table page's side panels: the score and ledger, the line, and the fair dice (with the
 * seed window). Functions of the page (server/static/table/table.js), kept apart so that each file
 * stays one concern. */

import { tableClockLine } from "./clocks.js";
import { h, replace } from "../lib/dom.js";
import { cubeText, offerText, settlementText, signed } from "../lib/names.js";

/** The score panel: the match score or the ledger. */
export function renderScore(page) {
  const v = page.view;
  const rows = [];
  if (v.kind === "match" && Array.isArray(v.score)) {
    const seats = v.seats || [];
    const parts = seats.map((id, i) => `${id ? page.nameOf(id) : `Seat ${i + 1}`} ${v.score[i]}`);
    rows.push(
      h(
        "p",
        { "data-testid": "score" },
        `${parts.join(" \u2013 ")} \u00B7 match to ${v.match_length}${v.crawford ? " \u00B7 Crawford game" : ""}${v.match_winner ? ` \u00B7 ${page.nameOf(v.match_winner)} won` : ""}`,
      ),
    );
  }
  const ledger = v.ledger || {};
  const ids = (v.players || []).map((p) => p.id).filter((id) => id in ledger);
  for (const id of Object.keys(ledger)) if (!ids.includes(id)) ids.push(id);
  if (v.kind !== "match" || ids.some((id) => ledger[id])) {
    rows.push(
      h(
        "table",
        { class: "ledger", "data-testid": "ledger" },
        h("caption", { class: "visually-hidden" }, "Points won or lost at this table"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Points"))),
        h(
          "tbody",
          {},
          ids.length
            ? ids.map((id) =>
                h(
                  "tr",
                  { "data-testid": `ledger-${id}`, "data-amount": ledger[id] },
                  h("th", { scope: "row" }, page.nameOf(id)),
                  h("td", { class: ledger[id] > 0 ? "plus" : ledger[id] < 0 ? "minus" : "" }, signed(ledger[id])),
                ),
              )
            : h("tr", {}, h("td", { colspan: 2, class: "muted" }, "No games settled yet.")),
        ),
      ),
    );
  }
  replace(page.scorePanel, h("h2", { id: "score-title" }, v.kind === "match" ? "Score" : "Ledger"), rows);
}

/** The line panel: the box, the captain, each member with their cube, presence and clock. */
export function renderLine(page) {
  const v = page.view;
  if (v.kind !== "chouette") {
    const players = (v.players || []).filter((p) => p.role !== "spectator");
    const game = v.game;
    const cube = game && game.cubes && game.cubes[0];
    replace(
      page.linePanel,
      h("h2", { id: "line-title" }, "Players"),
      h(
        "ul",
        { class: "members", "data-testid": "players" },
        players.map((p) =>
          h("li", { "data-testid": `member-${p.id}` }, `${page.nameOf(p.id)}${p.bot ? " (bot)" : ""}${p.seat !== null && p.seat !== undefined ? `, seat ${p.seat + 1}` : ""}`, page.nameMarks(p.id)),
        ),
      ),
      tableClockLine(v, page.elapsed()),
      cube
        ? h(
            "p",
            { "data-testid": "cube" },
            `The ${cubeText(cube, page.nameOf)}${offerText(cube, page.nameOf) ? `. ${offerText(cube, page.nameOf)}` : ""}.`,
          )
        : null,
    );
    return;
  }
  const game = v.game;
  const cubes = new Map(((game && game.cubes) || []).map((c) => [c.member, c]));
  const line = v.line && v.line.length ? v.line : (v.players || []).filter((p) => p.role !== "spectator").map((p) => p.id);
  const items = line.map((id, i) => {
    const tags = [];
    if (id === v.box) tags.push("Box");
    if (id === v.captain) tags.push("Captain");
    if (id === v.acting_captain && id !== v.captain) tags.push("Acting captain (moves for the team)");
    const cube = cubes.get(id);
    const out = cube && cube.in_game === false;
    const role = (v.players || []).find((p) => p.id === id)?.role;
    const bits = [];
    if (cube) bits.push(h("span", { class: "cube-text", "data-testid": `cube-${id}`, "data-value": cube.value, "data-owner": cube.owner ?? "" }, cubeText(cube, page.nameOf)));
    if (cube && offerText(cube, page.nameOf)) bits.push(h("span", { class: "offer", "data-testid": `offer-${id}` }, offerText(cube, page.nameOf)));
    if (out) bits.push(h("span", { class: "out-text", "data-testid": `out-${id}` }, `out of this game${cube.settlement ? `: ${settlementText(cube.settlement, page.nameOf)}` : ""}`));
    if (role === "waiting") bits.push(h("span", { class: "muted" }, "plays from the next game"));
    // (The box's choices and answers, member by member, are in the action panel: always in
    // view beside the board, table_actions.js.)
    return h(
      "li",
      { class: `member${out ? " out" : ""}`, "data-testid": `member-${id}`, "data-in-game": cube ? String(cube.in_game !== false) : "" },
      h("span", { class: "pos", "aria-hidden": "true" }, `${i + 1}.`),
      h("strong", {}, page.nameOf(id)),
      page.nameMarks(id),
      tags.length ? h("span", { class: "tags" }, ` \u2014 ${tags.join(", ")}`) : null,
      bits.length ? h("span", { class: "bits" }, bits.map((b) => [" \u00B7 ", b])) : null,
    );
  });
  const history = (v.history || []).slice(-5).reverse();
  replace(
    page.linePanel,
    h("h2", { id: "line-title" }, "The line"),
    h("p", { class: "muted" }, "Box first, then the captain and the team in order."),
    h("ol", { class: "members line", "data-testid": "line" }, items),
    tableClockLine(v, page.elapsed()),
    history.length
      ? h(
          "details",
          { class: "history", "data-testid": "history" },
          h("summary", {}, "Earlier games"),
          h(
            "ul",
            {},
            history.map((g) =>
              h(
                "li",
                {},
                `Game ${g.game}: box ${page.nameOf(g.box)}, captain ${page.nameOf(g.captain)}. `,
                (g.settlements || []).map((st) => `${page.nameOf(st.member)}: ${settlementText(st, page.nameOf)}. `),
              ),
            ),
          ),
        )
      : null,
  );
}

/** The fair dice panel: the commitment, the seed window, the player's own seed. */
export function renderFair(page) {
  const v = page.view;
  const game = v.game;
  const allowed = new Set(v.allowed || []);
  replace(
    page.fairPanel,
    h("h2", { id: "fair-title" }, "Fair dice"),
    game && game.dice_commitment
      ? h(
          "p",
          {},
          `Game ${game.number}'s dice are committed to: `,
          h("code", { class: "hash", "data-testid": "commitment" }, game.dice_commitment),
          v.in_game ? ". The seed is revealed when the game ends." : ". The game is over: its seed is revealed, and the replay checks every die against it.",
        )
      : h("p", { class: "muted" }, "Each game's dice are committed to before the first throw."),
    v.seed_window
      ? h(
          "p",
          { "data-testid": "seed-window" },
          v.seed_window.waiting.length
            ? `Seed window: ${page.windowLeft()} s left for ${v.seed_window.waiting.map((p) => page.nameOf(p)).join(", ")}.`
            : "Seed window: every player has answered.",
        )
      : null,
    page.mySeed && game && page.mySeed.game === game.number
      ? h("p", {}, "Your seed ", h("code", { class: "hash", "data-testid": "my-seed" }, page.mySeed.seed), " is mixed into this game's dice.")
      : null,
    allowed.has("add_seed") && !allowed.has("waive_seed")
      ? h(
          "form",
          {
            class: "seed-form",
            onsubmit: async (ev) => {
              ev.preventDefault();
              const seed = page.seedInput.value.trim();
              if (seed && (await page.send({ type: "add_seed", seed }))) page.seedInput.value = "";
            },
          },
          h("label", { for: "seed-input" }, "Mix in a seed of your own"),
          page.seedInput,
          h("button", { type: "submit", "data-testid": "cmd-add_seed" }, "Add seed"),
        )
      : null,
    h("p", {}, h("a", { href: `#/replay/${page.id}`, "data-testid": "verify-link" }, "Replay, verify the dice and audit this table")),
  );
}

/** Seconds left in the open seed window while it still waits for someone (0: none). */
export function windowLeft(page) {
  const w = page.view && page.view.seed_window;
  if (!w || !w.waiting.length) return 0;
  return Math.max(0, Math.ceil((w.deadline - (Date.now() + (page.clockOffset || 0))) / 1000));
}

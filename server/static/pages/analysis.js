// The blunders of a table's games on its replay page: GNU Backgammon's analysis
// (GET /tables/{id}/analysis) lists each decision that lost 0.04 EMG or more (an error) or
// 0.08 or more (a blunder), with the action taken and the best one; a click shows the position
// the decision was made in.

import { api } from "../lib/api.js";
import { h, replace } from "../lib/dom.js";

/** The panel; `show(version)` moves the replay, `nameOf(id)` names a player. */
export function analysisPanel(tableId, { show, nameOf }) {
  const body = h("div", { "data-testid": "analysis-result", "aria-live": "polite" });
  const button = h(
    "button",
    { type: "button", "data-testid": "run-analysis", onclick: () => load() },
    "Find the blunders",
  );
  const panel = h(
    "section",
    { class: "panel", "aria-labelledby": "analysis-title" },
    h("h2", { id: "analysis-title" }, "Blunders"),
    h(
      "p",
      { class: "muted" },
      "GNU Backgammon's analysis of the finished games: errors lose 0.04 EMG or more, blunders 0.08 or more. Click one to see its position.",
    ),
    button,
    body,
  );

  async function load() {
    button.disabled = true;
    replace(body, h("p", { class: "muted" }, "Analysing\u2026"));
    let doc;
    try {
      doc = await api.analysis(tableId);
    } catch (err) {
      // 409: the table has finished no game yet, so there is nothing to analyse.
      replace(
        body,
        err.status === 409
          ? h("p", { class: "muted", "data-testid": "analysis-summary" }, "No finished game to analyse yet.")
          : h("p", { role: "alert", "data-testid": "analysis-error" }, err.message),
      );
      button.disabled = false;
      return;
    }
    const marked = doc.games.flatMap((g) => g.decisions.filter((d) => d.mark));
    body.dataset.count = String(marked.length);
    const who = (id) => (nameOf ? nameOf(id) : id);
    replace(
      body,
      h(
        "p",
        { "data-testid": "analysis-summary" },
        Object.values(doc.players).length
          ? Object.entries(doc.players)
              .map(([id, p]) => `${who(id)}: error rate ${p.error_rate_memg.toFixed(1)} mEMG, luck ${p.luck_total_emg >= 0 ? "+" : ""}${p.luck_total_emg.toFixed(3)} EMG`)
              .join("; ")
          : "No finished game to analyse yet.",
      ),
      marked.length
        ? h(
            "ol",
            { class: "blunder-list", "data-testid": "blunder-list" },
            marked.map((d, i) =>
              h(
                "li",
                { "data-mark": d.mark },
                h(
                  "button",
                  {
                    type: "button",
                    class: "secondary",
                    "data-testid": `blunder-${i}`,
                    "data-version": d.version ?? "",
                    // The position the decision was made in: just before the event that made it.
                    onclick: () => d.version && show(Math.max(1, d.version - 1)),
                  },
                  `Game ${d.game}: ${who(d.player)}${d.cube && d.cube !== d.player ? ` (${who(d.cube)}'s cube)` : ""}${d.dice ? ` ${d.dice.join("")}` : ""} ${d.action}`,
                ),
                ` \u2014 best ${d.best}, ${d.mark} (\u2212${d.equity_lost.toFixed(3)})`,
              ),
            ),
          )
        : h("p", { class: "muted" }, "No error or blunder."),
    );
    button.disabled = false;
  }

  return { panel, load };
}

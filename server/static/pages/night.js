// A chouette night (#/night/<table ids, comma-separated>[/<since>[/<until>]]): one ledger over
// a club's tables for an evening — who is up and who is down — and who pays whom to settle it,
// in the fewest payments (GET /nights; docs/tournaments.md, "A chouette night").

import { request, session } from "../lib/api.js";
import { h, replace } from "../lib/dom.js";

const enc = encodeURIComponent;
const HOUR = 3600000;

/** A time as a datetime-local input shows it (the browser's zone, to the minute). */
export function localInput(ms) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 16);
}

/** Points with their sign: "+3", "−2", "0". */
export function signed(amount) {
  return amount > 0 ? `+${amount}` : amount < 0 ? `\u2212${-amount}` : "0";
}

/** "Bob pays Ann 3 points." */
export function paymentText(p) {
  return `${p.payer_name} pays ${p.payee_name} ${p.amount} point${p.amount === 1 ? "" : "s"}.`;
}

/** The address of a night: its tables and window. */
export function nightHash(tables, since, until) {
  const parts = ["#/night", tables.map(enc).join(",")];
  if (since) parts.push(enc(since));
  if (since && until) parts.push(enc(until));
  return parts.join("/");
}

export function nightPage(main, ids, { since: sinceText, until: untilText, showError, go }) {
  const tables = (ids || "").split(",").filter(Boolean);
  const now = Date.now();
  const sinceMs = Date.parse(sinceText || "") || now - 12 * HOUR;
  const untilMs = Date.parse(untilText || "") || null;
  const since = h("input", { id: "night-since", type: "datetime-local", value: localInput(sinceMs), "data-testid": "night-since" });
  const until = h("input", { id: "night-until", type: "datetime-local", value: untilMs ? localInput(untilMs) : "", "data-testid": "night-until" });
  const tableList = h("ul", { class: "night-tables", "data-testid": "night-tables" });
  const ledgerBody = h("tbody", { "data-testid": "night-ledger" });
  const payments = h("ul", { class: "night-payments", "data-testid": "night-payments" });
  const note = h("p", { class: "muted", "data-testid": "night-note" });
  const adder = h("select", { id: "night-add", "data-testid": "night-add" }, h("option", { value: "" }, "Add one of your tables\u2026"));
  const show = (extra = tables) => {
    const from = new Date(since.value).toISOString();
    const to = until.value ? new Date(until.value).toISOString() : "";
    go(nightHash(extra, from, to));
  };
  adder.addEventListener("change", () => {
    if (adder.value && !tables.includes(adder.value)) show([...tables, adder.value]);
  });
  replace(
    main,
    h(
      "section",
      { "aria-labelledby": "night-title" },
      h("h1", { id: "night-title" }, "The night's ledger"),
      h(
        "form",
        { class: "toolbar", onsubmit: (ev) => (ev.preventDefault(), show()) },
        h("label", { for: "night-since" }, "From"),
        since,
        h("label", { for: "night-until" }, "to"),
        until,
        h("button", { type: "submit", "data-testid": "night-show" }, "Show"),
      ),
      h("h2", {}, "Tables"),
      tableList,
      h("p", {}, h("label", { for: "night-add", class: "visually-hidden" }, "Add a table"), adder),
      h("h2", {}, "Who is up, who is down"),
      h("table", { class: "lobby" }, h("thead", {}, h("tr", {}, ["Player", "Points", "Games"].map((c) => h("th", { scope: "col" }, c)))), ledgerBody),
      h("h2", {}, "Who pays whom"),
      payments,
      note,
    ),
  );
  if (!tables.length) {
    replace(tableList, h("li", { class: "muted" }, "No table yet: add one of yours below."));
  }
  if (session()) {
    request("GET", "/me/tables")
      .then((r) => {
        for (const t of r.tables) {
          if (t.kind !== "match" && !tables.includes(t.table_id)) adder.append(h("option", { value: t.table_id }, t.name || `${t.kind} table`));
        }
      })
      .catch(() => {});
  }
  if (!tables.length) return null;
  const query = `tables=${enc(tables.join(","))}&since=${enc(new Date(sinceMs).toISOString())}${untilMs ? `&until=${enc(new Date(untilMs).toISOString())}` : ""}`;
  request("GET", `/nights?${query}`)
    .then((night) => {
      replace(
        tableList,
        night.tables.map((t) =>
          h(
            "li",
            {},
            h("a", { href: t.page }, t.name || `${t.kind} table`),
            ` \u2014 ${t.games} game${t.games === 1 ? "" : "s"} `,
            tables.length > 1
              ? h("button", { type: "button", class: "link", "data-testid": "night-remove", onclick: () => show(tables.filter((x) => x !== t.table_id)) }, "remove")
              : "",
          ),
        ),
      );
      replace(
        ledgerBody,
        night.ledger.length
          ? night.ledger.map((line) =>
              h(
                "tr",
                { "data-player": line.player },
                h("td", {}, h("a", { href: `#/player/${enc(line.player)}`, class: "player-link" }, line.name)),
                h("td", { class: line.amount > 0 ? "up" : line.amount < 0 ? "down" : "" }, signed(line.amount)),
                h("td", {}, String(line.games)),
              ),
            )
          : h("tr", {}, h("td", { colspan: 3, class: "muted" }, "No game ended at these tables in this window.")),
      );
      replace(
        payments,
        night.payments.length ? night.payments.map((p) => h("li", { "data-testid": "night-payment" }, paymentText(p))) : h("li", { class: "muted" }, night.ledger.length ? "Everyone is square." : "Nothing to settle."),
      );
      note.textContent = night.payments.length
        ? night.fewest
          ? `${night.payments.length} payment${night.payments.length === 1 ? "" : "s"}: the fewest that settle the night.`
          : `${night.payments.length} payments (too many players to search for the fewest: a good plan, not always the best).`
        : "";
    })
    .catch((err) => showError(err.message));
  return null;
}

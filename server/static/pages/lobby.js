// The lobby: the open and running tables, refreshed every few seconds, and the form that
// creates a money table, a match or a chouette.

import { api, session } from "../lib/api.js";
import { h, replace } from "../lib/dom.js";
import { myTablesPanel, playerLink } from "./social.js";

const REFRESH_MS = 4000;

const KIND_NAMES = { money: "Money", match: "Match", chouette: "Chouette" };

/** The options of a table in words (only those that differ from plain play). */
export function describeOptions(kind, o = {}) {
  const out = [];
  if (kind === "match" && o.match_length) out.push(`${o.match_length}-point match`);
  if (kind === "chouette") {
    out.push(o.cube_mode === "single" ? "one shared cube" : "a cube per member");
    const consult = { free: "free consultation", none: "no consultation", after_cube: "consultation after a cube" };
    if (o.consultation) out.push(consult[o.consultation] || o.consultation);
    if (o.box_must_take_half) out.push("box takes half");
  }
  if (o.auto_doubles) out.push(`auto doubles up to ${o.auto_doubles}`);
  if (o.beavers) out.push("beavers");
  if (o.jacoby) out.push("Jacoby rule");
  if (o.rated) out.push("rated");
  if (o.private) out.push("private");
  return out.join(", ") || "standard rules";
}

/** The players' names, each a link to their profile: the row's `names` maps each account id
 * in `players` to a name. */
function playerNames(row) {
  const players = row.players || [];
  if (players.length === 0) return "nobody yet";
  const names = row.names || {};
  return players.map((id, i) => [i ? ", " : "", playerLink(id, names[id] || "a player")]);
}

function playerIds(row) {
  return row.players || [];
}

/** The lobby page; returns its cleanup (stops the refresh). */
export function lobbyPage(main, { showError, go }) {
  const me = session();
  let kindFilter = "";
  const status = h("p", { class: "muted", role: "status", "aria-live": "polite", "data-testid": "lobby-status" });
  const body = h("tbody", { "data-testid": "lobby-tables" });
  const table = h(
    "table",
    { class: "lobby", "aria-describedby": "lobby-status" },
    h("caption", {}, "Tables"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Table", "Kind", "Options", "Players", "Seats free", "Watching", "Status", ""].map((c) =>
          h("th", { scope: "col" }, c),
        ),
      ),
    ),
    body,
  );
  const filter = h(
    "select",
    {
      id: "lobby-kind",
      "data-testid": "lobby-kind",
      onchange: (ev) => {
        kindFilter = ev.target.value;
        refresh();
      },
    },
    h("option", { value: "" }, "All tables"),
    Object.entries(KIND_NAMES).map(([k, name]) => h("option", { value: k }, name)),
  );

  const act = async (row, join) => {
    if (join) {
      try {
        await api.command(row.id, { type: "join" });
      } catch (err) {
        showError(err.message);
        return;
      }
    }
    go(`#/table/${row.id}`);
  };

  // "Your tables": the tables of the lobby where this player sits, first, each one click from
  // its seat (a guest back in a new tab, or after closing the browser, finds them here).
  const yoursList = h("ul", { class: "your-tables", "data-testid": "your-tables" });
  const yours = h(
    "section",
    { class: "card", "aria-labelledby": "your-tables-title", "data-testid": "your-tables-card", hidden: true },
    h("h2", { id: "your-tables-title" }, "Your tables"),
    yoursList,
  );
  const renderYours = (rows) => {
    const mine = me ? rows.filter((row) => playerIds(row).includes(me.account_id)) : [];
    yours.hidden = !mine.length;
    replace(
      yoursList,
      mine.map((row) => {
        const label = row.name || `${KIND_NAMES[row.kind] || row.kind} table`;
        return h(
          "li",
          { "data-testid": "your-table", "data-table-id": row.id },
          h("a", { href: `#/table/${encodeURIComponent(row.id)}`, "data-testid": "your-table-open", "aria-label": `Back to your seat at ${label}` }, "Back to your seat"),
          ` ${label}: ${describeOptions(row.kind, row.options)}; ${row.status || ""}`,
        );
      }),
    );
  };

  const render = (all) => {
    renderYours(all);
    // The player's own tables first, the others in the lobby's order.
    const isMine = (row) => Boolean(me && playerIds(row).includes(me.account_id));
    const rows = [...all.filter(isMine), ...all.filter((row) => !isMine(row))];
    if (!rows.length) {
      replace(body, h("tr", {}, h("td", { colspan: 8, class: "muted" }, "No tables yet: create one below.")));
      return;
    }
    replace(
      body,
      rows.map((row) => {
        const mine = me && playerIds(row).includes(me.account_id);
        const canJoin = me && !mine && row.free_seats > 0 && row.status !== "finished";
        const label = row.name || `${KIND_NAMES[row.kind] || row.kind} table`;
        return h(
          "tr",
          { "data-testid": "lobby-row", "data-table-id": row.id, "data-kind": row.kind },
          h("th", { scope: "row" }, label),
          // data-label: a phone shows each row as a card, every value with its column's name.
          h("td", { "data-label": "Kind" }, KIND_NAMES[row.kind] || row.kind),
          h("td", { "data-label": "Options" }, describeOptions(row.kind, row.options)),
          h("td", { "data-label": "Players" }, playerNames(row)),
          h("td", { "data-label": "Seats free" }, `${row.free_seats ?? "?"} of ${row.seats ?? "?"}`),
          h("td", { "data-label": "Watching" }, String(row.spectators ?? 0)),
          h("td", { "data-label": "Status" }, row.status || ""),
          h(
            "td",
            {},
            h(
              "div",
              { class: "actions" },
              mine
              ? h("button", { type: "button", "data-testid": "lobby-open", "aria-label": `Open ${label}`, onclick: () => act(row, false) }, "Open")
              : null,
            canJoin
              ? h(
                  "button",
                  { type: "button", "data-testid": "lobby-join", "aria-label": `Join ${label}`, onclick: () => act(row, true) },
                  row.kind === "chouette" ? "Join" : "Sit",
                )
              : null,
            mine
              ? null
              : h("button", { type: "button", class: "secondary", "data-testid": "lobby-watch", "aria-label": `Watch ${label}`, onclick: () => act(row, false) }, "Watch"),
            h("a", { href: `#/replay/${row.id}`, "data-testid": "lobby-replay", "aria-label": `Replay ${label}` }, "Replay"),
            ),
          ),
        );
      }),
    );
  };

  let timer = null;
  let stopped = false;
  const refresh = async () => {
    clearTimeout(timer);
    try {
      const data = await api.lobby(kindFilter);
      if (stopped) return;
      render(data.tables || []);
      const n = (data.tables || []).length;
      status.textContent = `${n} table${n === 1 ? "" : "s"}; updated ${new Date().toLocaleTimeString()}.`;
    } catch (err) {
      if (!stopped) status.textContent = `The lobby could not be loaded: ${err.message}`;
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  };

  replace(
    main,
    h(
      "section",
      { "aria-labelledby": "lobby-title" },
      h("h1", { id: "lobby-title" }, "Lobby"),
      yours,
      h(
        "div",
        { class: "toolbar" },
        h("label", { for: "lobby-kind" }, "Show"),
        filter,
        h("button", { type: "button", class: "secondary", "data-testid": "lobby-refresh", onclick: refresh }, "Refresh"),
        h("a", { href: "#/tournaments", "data-testid": "tournaments-link" }, "Tournaments"),
      ),
      h("div", { class: "scroll" }, table),
      status,
    ),
    me ? createForm({ showError, go }) : h("p", {}, "Get in above to create or join a table; anyone may watch."),
    me ? myTablesPanel() : null,
  );
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function createForm({ showError, go }) {
  const kind = h(
    "select",
    { id: "create-kind", name: "kind", "data-testid": "create-kind" },
    Object.entries(KIND_NAMES).map(([k, name]) => h("option", { value: k }, name)),
  );
  const num = (id, label, attrs) =>
    h("div", { class: "field", "data-for": id }, h("label", { for: id }, label), h("input", { id, name: id, type: "number", "data-testid": id, ...attrs }));
  const check = (id, label) =>
    h("div", { class: "field check", "data-for": id }, h("input", { id, name: id, type: "checkbox", "data-testid": id }), h("label", { for: id }, label));
  const select = (id, label, options) =>
    h(
      "div",
      { class: "field", "data-for": id },
      h("label", { for: id }, label),
      h("select", { id, name: id, "data-testid": id }, options.map(([v, t]) => h("option", { value: v }, t))),
    );

  const fields = {
    match: [
      num("create-match-length", "Match length (points)", { min: 1, max: 255, value: 5 }),
      check("create-rated", "Rated (registered players only)"),
    ],
    money: [],
    chouette: [
      select("create-cube-mode", "Cubes", [
        ["multiple", "A cube per member"],
        ["single", "One shared cube"],
      ]),
      select("create-consultation", "Consultation", [
        ["free", "Free"],
        ["none", "None"],
        ["after_cube", "After a cube is offered"],
      ]),
      check("create-box-half", "The box must take at least half"),
      num("create-max-players", "Most players (2 to 12)", { min: 2, max: 12, value: 8 }),
    ],
  };
  const common = {
    autoDoubles: num("create-auto-doubles", "Automatic doubles (0 = off)", { min: 0, max: 6, value: 0 }),
    beavers: check("create-beavers", "Beavers"),
    jacoby: check("create-jacoby", "Jacoby rule"),
    private: check("create-private", "Private: by invitation only, not in the lobby"),
  };
  const extra = h("div", { class: "options" });
  const showFields = () => {
    const k = kind.value;
    const list = [...fields[k]];
    if (k !== "match") list.push(common.beavers, common.jacoby);
    if (k === "money") list.push(common.autoDoubles);
    list.push(common.private);
    replace(extra, list);
  };
  kind.addEventListener("change", showFields);
  showFields();

  const name = h("input", { id: "create-name", name: "name", "data-testid": "create-name", maxlength: 80, placeholder: "optional" });
  const form = h(
    "form",
    {
      class: "card create",
      "aria-labelledby": "create-title",
      "data-testid": "create-form",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const k = kind.value;
        const v = (id) => form.querySelector(`#${id}`);
        const options = {};
        if (k === "match") options.match_length = Number(v("create-match-length").value);
        if (k === "match" && v("create-rated").checked) options.rated = true;
        if (v("create-private").checked) options.private = true;
        if (k !== "match") {
          options.beavers = v("create-beavers").checked;
          options.jacoby = v("create-jacoby").checked;
        }
        if (k === "money") options.auto_doubles = Number(v("create-auto-doubles").value || 0);
        if (k === "chouette") {
          options.cube_mode = v("create-cube-mode").value;
          options.consultation = v("create-consultation").value;
          options.box_must_take_half = v("create-box-half").checked;
          options.max_players = Number(v("create-max-players").value || 0);
        }
        const button = form.querySelector("button[type=submit]");
        button.disabled = true;
        try {
          const made = await api.create(k, options, name.value.trim());
          await api.command(made.id, { type: "join" });
          go(`#/table/${made.id}`);
        } catch (err) {
          showError(err.message);
        } finally {
          button.disabled = false;
        }
      },
    },
    h("h2", { id: "create-title" }, "Create a table"),
    h("div", { class: "field" }, h("label", { for: "create-kind" }, "Kind"), kind),
    h("div", { class: "field" }, h("label", { for: "create-name" }, "Name"), name),
    extra,
    h("button", { type: "submit", "data-testid": "create-submit" }, "Create and sit"),
  );
  return form;
}

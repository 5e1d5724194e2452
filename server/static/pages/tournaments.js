// The tournaments (issue 32, item 5): #/tournaments lists them (GET /tournaments) with the form
// that creates one (POST /tournaments, a registered player's), and #/tournament/<id> shows one
// (GET /tournaments/{id}): its settings and entrants, Enter / Withdraw / Start as the API allows,
// the bracket drawn for a knockout, the standings for a Swiss or a round robin, every round's
// boards with links into their live tables, the winner, and the director's adjustment of a
// result. While the tournament is not over the page follows its live stream where the server
// has one (GET /tournaments/{id}/events: each event wakes it), else asks again every few
// seconds; it redraws only when the tournament's version moved.

import { request, session, uuid4 } from "../lib/api.js";
import { h, replace } from "../lib/dom.js";
import { FORMAT_NAMES, STATUS_NAMES, allowed, bracketLayout, createBody, describeTournament, howText, namesOf, standingColumns, streamPath, usernames } from "../lib/tournament.js";
import { playerLink } from "./social.js";

const enc = encodeURIComponent;
const REFRESH_MS = 3000;
const SLOW_MS = 20000; // the poll while the live stream is open: a net, in case it stalls
const STREAM_TRIES = 3; // failures in a row (none opened) before the page polls alone

/** #/tournaments: the list, and the create form for a registered player. */
export function tournamentsPage(main, { showError, go }) {
  const me = session();
  const status = h("p", { class: "muted", role: "status", "aria-live": "polite", "data-testid": "tournaments-status" });
  const body = h("tbody", { "data-testid": "tournaments-list" });
  const load = async () => {
    try {
      const data = await request("GET", "/tournaments");
      const rows = data.tournaments || [];
      replace(
        body,
        rows.length
          ? rows.map((t) => {
              const label = t.name || `${FORMAT_NAMES[t.format] || t.format} tournament`;
              return h(
                "tr",
                { "data-testid": "tournament-row", "data-tournament-id": t.id },
                h("th", { scope: "row" }, h("a", { href: `#/tournament/${enc(t.id)}`, "data-testid": "tournament-open" }, label)),
                h("td", { "data-label": "Format" }, FORMAT_NAMES[t.format] || t.format),
                h("td", { "data-label": "Status" }, STATUS_NAMES[t.status] || t.status),
                h("td", { "data-label": "Entrants" }, String(t.entrants)),
                h("td", { "data-label": "Rounds" }, String(t.rounds)),
                h("td", { "data-label": "Rated" }, t.rated ? "rated" : "not rated", t.private ? ", private" : ""),
              );
            })
          : h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No tournaments yet.")),
      );
      status.textContent = `${rows.length} tournament${rows.length === 1 ? "" : "s"}.`;
    } catch (err) {
      status.textContent = `The tournaments could not be loaded: ${err.message}`;
    }
  };
  replace(
    main,
    h(
      "section",
      { "aria-labelledby": "tournaments-title" },
      h("h1", { id: "tournaments-title" }, "Tournaments"),
      h("div", { class: "toolbar" }, h("button", { type: "button", class: "secondary", "data-testid": "tournaments-refresh", onclick: load }, "Refresh")),
      h(
        "div",
        { class: "scroll" },
        h(
          "table",
          { class: "lobby" },
          h("caption", {}, "Tournaments"),
          h("thead", {}, h("tr", {}, ["Tournament", "Format", "Status", "Entrants", "Rounds", "Rated"].map((c) => h("th", { scope: "col" }, c)))),
          body,
        ),
      ),
      status,
    ),
    me && !me.guest
      ? createForm({ showError, go })
      : h("p", { "data-testid": "tournaments-register" }, me ? "Register (keep this guest) to create a tournament; a guest may enter one that is not rated." : "Get in from the lobby to enter a tournament; register to create one."),
  );
  load();
  return null;
}

function field(id, label, input, attrs = {}) {
  return h("div", { class: "field", "data-for": id, ...attrs }, h("label", { for: id }, label), input);
}

function check(id, label) {
  return h("div", { class: "field check", "data-for": id }, h("input", { id, name: id, type: "checkbox", "data-testid": id }), h("label", { for: id }, label));
}

function number(id, attrs) {
  return h("input", { id, name: id, type: "number", "data-testid": id, ...attrs });
}

function createForm({ showError, go }) {
  const format = h(
    "select",
    { id: "tournament-format", "data-testid": "tournament-format" },
    Object.entries(FORMAT_NAMES).map(([v, t]) => h("option", { value: v }, t)),
  );
  const name = h("input", { id: "tournament-name", "data-testid": "tournament-name", maxlength: 100, placeholder: "optional" });
  const length = number("tournament-length", { min: 1, max: 25, value: 3, required: true });
  const rounds = number("tournament-rounds", { min: 1, max: 20, value: 3 });
  const maxField = number("tournament-max-field", { min: 2, max: 256, placeholder: "the format's most" });
  const closes = h("input", { id: "tournament-closes", type: "datetime-local", "data-testid": "tournament-closes" });
  const show = number("tournament-show", { min: 5, max: 86400, value: 600 });
  const clock = h(
    "select",
    { id: "tournament-clock", "data-testid": "tournament-clock" },
    h("option", { value: "default" }, "The server's match clock"),
    h("option", { value: "off" }, "No clock"),
    h("option", { value: "custom" }, "My own"),
  );
  const delay = number("tournament-delay", { min: 0, max: 600, value: 12 });
  const reserve = number("tournament-reserve", { min: 0, max: 7200, value: 120 });
  const invited = h("input", { id: "tournament-invited", "data-testid": "tournament-invited", placeholder: "usernames, by commas" });
  const fields = {
    rounds: field("tournament-rounds", "Rounds (Swiss: 1 to 20)", rounds),
    third: check("tournament-third", "A match for third place"),
    private: check("tournament-private", "Private: seen only by those invited, not listed"),
    invited: field("tournament-invited", "Invite (usernames)", invited),
    delay: field("tournament-delay", "Seconds a move (delay)", delay),
    reserve: field("tournament-reserve", "Seconds in reserve", reserve),
  };
  const showFields = () => {
    fields.rounds.hidden = format.value !== "swiss";
    fields.third.hidden = format.value !== "knockout";
    fields.invited.hidden = !fields.private.querySelector("input").checked;
    fields.delay.hidden = fields.reserve.hidden = clock.value !== "custom";
  };
  format.addEventListener("change", showFields);
  clock.addEventListener("change", showFields);
  fields.private.querySelector("input").addEventListener("change", showFields);
  showFields();
  const error = h("p", { class: "form-error", role: "alert", "data-testid": "tournament-create-error" });
  // A command id kept across retries of one form: a double click, or a retry after the network
  // failed, creates one tournament (the id is derived from it).
  let commandId = uuid4();
  const form = h(
    "form",
    {
      class: "card create",
      "aria-labelledby": "tournament-create-title",
      "data-testid": "tournament-create",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const button = form.querySelector("button[type=submit]");
        button.disabled = true;
        error.textContent = "";
        try {
          const ids = [];
          if (fields.private.querySelector("input").checked) {
            for (const user of usernames(invited.value)) {
              const p = await request("GET", `/players/${enc(user)}?recent=1`).catch((err) => {
                throw new Error(err.status === 404 ? `There is no player named ${user}.` : err.message);
              });
              ids.push(p.account_id);
            }
          }
          const body = createBody({
            format: format.value,
            name: name.value,
            matchLength: length.value,
            rounds: rounds.value,
            thirdPlace: form.querySelector("#tournament-third").checked,
            rated: form.querySelector("#tournament-rated").checked,
            private: form.querySelector("#tournament-private").checked,
            invited: ids,
            maxField: maxField.value,
            entriesClose: closes.value ? new Date(closes.value).getTime() : null,
            showSeconds: show.value,
            clock: clock.value,
            delay: delay.value,
            reserve: reserve.value,
            commandId,
          });
          const made = await request("POST", "/tournaments", body);
          commandId = uuid4();
          go(`#/tournament/${enc(made.id)}`);
        } catch (err) {
          // The server's problem says what is wrong (and with which field, when it knows).
          error.textContent = err.field ? `${err.message} (${err.field})` : err.message;
          if (err.status && err.status < 500) commandId = uuid4();
        } finally {
          button.disabled = false;
        }
      },
    },
    h("h2", { id: "tournament-create-title" }, "Create a tournament"),
    field("tournament-name", "Name", name),
    field("tournament-format", "Format", format),
    h(
      "div",
      { class: "options" },
      field("tournament-length", "Match length (points, 1 to 25)", length),
      fields.rounds,
      fields.third,
      check("tournament-rated", "Rated (registered players only)"),
      field("tournament-max-field", "Most players", maxField),
      field("tournament-closes", "Entries close (empty: at the start)", closes),
      field("tournament-show", "A no-show after (seconds)", show),
      field("tournament-clock", "Clock", clock),
      fields.delay,
      fields.reserve,
      fields.private,
      fields.invited,
    ),
    error,
    h("button", { type: "submit", "data-testid": "tournament-submit" }, "Create the tournament"),
    h("p", { class: "muted" }, "You direct it: you start it, and you may adjust a result, for a reason. You play in it only if you enter it."),
  );
  return form;
}

/** #/tournament/<id>: one tournament, asked again every few seconds until it is over. */
export function tournamentPage(main, id, { showError }) {
  const me = session();
  let shown = -1;
  let last = null;
  let timer = null;
  let stopped = false;
  const head = h("div");
  const actions = h("div", { class: "toolbar", "data-testid": "tournament-actions" });
  const winner = h("p", { class: "champion", "data-testid": "tournament-winner", hidden: true });
  const entrants = h("ol", { class: "entrants", "data-testid": "tournament-entrants" });
  const drawn = h("div", { "data-testid": "tournament-drawn" });
  const rounds = h("div", { "data-testid": "tournament-rounds" });
  const adjust = adjustForm(id, (view) => draw(view, true), showError);
  const status = h("p", { class: "muted", role: "status", "aria-live": "polite", "data-testid": "tournament-status", "data-following": "poll" });

  const act = async (method, path, label) => {
    // One request at a time: a second click would only be refused (entered twice, say).
    for (const b of actions.querySelectorAll("button")) b.disabled = true;
    try {
      draw(await request(method, path, method === "DELETE" ? undefined : { command_id: uuid4() }), true);
    } catch (err) {
      showError(`${label}: ${err.message}`);
      for (const b of actions.querySelectorAll("button")) b.disabled = false;
    }
  };

  /** Draw the tournament: only a version newer than the one shown (an answer to a poll sent
   * before an action's may arrive after it), or the same one again when `force`d. */
  function draw(view, force = false) {
    if (view.version < shown || (!force && view.version === shown)) return;
    last = view;
    shown = view.version;
    const nameOf = namesOf(view);
    const o = view.options;
    const can = allowed(view, me);
    replace(
      head,
      h("h1", { id: "tournament-title", "data-testid": "tournament-title" }, view.name || `${FORMAT_NAMES[o.format]} tournament`),
      h("p", { "data-testid": "tournament-settings" }, describeTournament(o)),
      h(
        "p",
        { class: "muted" },
        view.director === me?.account_id
          ? "You direct it. "
          : view.director_name || view.entrants.some((e) => e.player === view.director)
            ? ["Directed by ", h("span", { "data-testid": "tournament-director" }, playerLink(view.director, view.director_name || nameOf(view.director))), ". "]
            : [playerLink(view.director, "Its director"), ". "],
        h("span", { "data-testid": "tournament-state", "data-status": view.status }, STATUS_NAMES[view.status] || view.status),
        view.status === "entering" && o.entries_close ? ` \u2014 entries close ${new Date(o.entries_close).toLocaleString()}` : "",
        view.status !== "entering" && view.total_rounds ? ` \u2014 round ${view.rounds.length} of ${view.total_rounds}` : "",
      ),
    );
    replace(
      actions,
      can.enter ? h("button", { type: "button", "data-testid": "tournament-enter", onclick: () => act("POST", `/tournaments/${enc(id)}/entries`, "Entering") }, "Enter") : null,
      can.guestBarred ? h("span", { class: "muted" }, "A rated tournament: register to enter.") : null,
      !me && view.status === "entering" ? h("a", { href: "#/lobby", "data-testid": "tournament-get-in" }, "Get in to enter") : null,
      can.withdraw ? h("button", { type: "button", class: "secondary", "data-testid": "tournament-withdraw", onclick: () => act("DELETE", `/tournaments/${enc(id)}/entries/me`, "Withdrawing") }, "Withdraw") : null,
      can.start ? h("button", { type: "button", class: "primary", "data-testid": "tournament-start", onclick: () => act("POST", `/tournaments/${enc(id)}/start`, "Starting") }, "Start the tournament") : null,
    );
    winner.hidden = !view.winner;
    replace(winner, view.winner ? ["Winner: ", playerLink(view.winner, nameOf(view.winner))] : null);
    replace(
      entrants,
      view.entrants.length
        ? view.entrants.map((e) =>
            h(
              "li",
              { "data-testid": "tournament-entrant", "data-player": e.player, class: e.withdrawn ? "out" : "" },
              playerLink(e.player, e.name || "a player"),
              ` (${Math.round(e.rating)})`,
              e.withdrawn ? " \u2014 withdrawn" : "",
            ),
          )
        : h("li", { class: "muted" }, "Nobody has entered yet."),
    );
    replace(drawn, o.format === "knockout" ? bracket(view, nameOf) : standings(view, nameOf));
    replace(rounds, view.rounds.length ? view.rounds.map((r) => roundList(r, view, nameOf)) : h("p", { class: "muted" }, "No round paired yet."));
    adjust.update(view, can.adjust, nameOf);
    document.title = `${view.name || "Tournament"} \u2014 Chouette`;
  }

  // The tournament's live stream (GET /tournaments/{id}/events), where the server has one: each
  // event wakes the page, which asks for the tournament again (the view, not the events, is what
  // it draws), and the poll slows to a safety net. A stream that cannot be opened (an older
  // server: a 404) leaves the page polling; one that drops is opened again with a fresh ticket
  // (a ticket is good once, so the browser's own reconnection cannot be left to it).
  let source = null;
  let live = false;
  let failures = 0;
  let wake = null;
  let retry = null;
  const close = () => {
    if (source) source.close();
    source = null;
    live = false;
  };
  const follow = async () => {
    if (stopped || source || !last || last.status === "finished" || failures >= STREAM_TRIES) return;
    let ticket = null;
    if (session()) {
      try {
        ticket = (await request("POST", "/tickets")).ticket;
      } catch {
        failures += 1;
        return;
      }
    }
    if (stopped || source) return;
    const es = new EventSource(streamPath(id, last.version, ticket));
    source = es;
    const woken = () => {
      clearTimeout(wake);
      wake = setTimeout(refresh, 100);
    };
    es.onopen = () => {
      live = true;
      failures = 0;
      status.dataset.following = "stream";
    };
    es.onmessage = woken;
    es.addEventListener("resync", () => {
      close();
      woken();
    });
    es.onerror = () => {
      if (source !== es) return;
      close();
      failures += 1;
      status.dataset.following = "poll";
      clearTimeout(retry);
      retry = setTimeout(follow, 1000 * failures);
    };
  };

  const refresh = async () => {
    clearTimeout(timer);
    try {
      const view = await request("GET", `/tournaments/${enc(id)}`);
      if (stopped) return;
      draw(view);
      status.textContent = view.status === "finished" ? "The tournament is over." : `Updated ${new Date().toLocaleTimeString()}; the page follows the tournament as it goes.`;
    } catch (err) {
      if (stopped) return;
      if (!last) {
        replace(main, h("h1", {}, "No such tournament"), h("p", { "data-testid": "tournament-error" }, err.message), h("p", {}, h("a", { href: "#/tournaments" }, "All the tournaments")));
        return;
      }
      status.textContent = `The tournament could not be loaded: ${err.message}`;
    }
    if (stopped) return;
    if (last?.status === "finished") {
      close();
      return;
    }
    follow();
    timer = setTimeout(refresh, live ? SLOW_MS : REFRESH_MS);
  };

  replace(
    main,
    h(
      "section",
      { class: "tournament-page", "aria-labelledby": "tournament-title" },
      h("p", {}, h("a", { href: "#/tournaments", "data-testid": "tournaments-back" }, "All the tournaments")),
      head,
      actions,
      winner,
      h("h2", {}, "Entrants"),
      entrants,
      drawn,
      h("h2", {}, "Rounds"),
      rounds,
      adjust.root,
      status,
    ),
  );
  head.append(h("p", { class: "muted" }, "Loading the tournament\u2026"));
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(wake);
    clearTimeout(retry);
    close();
  };
}

/** Set custom properties and grid places through the CSSOM: the page's Content-Security-Policy
 * (style-src 'self') refuses style attributes, not the CSSOM. */
function styled(el, props) {
  for (const [key, value] of Object.entries(props)) el.style.setProperty(key, String(value));
  return el;
}

function tableLink(tableId, label, testId) {
  return h("a", { href: `#/table/${enc(tableId)}`, "data-testid": testId, "aria-label": label }, "Table");
}

/** One player's line in a bracket's box: the name (or a bye, or nobody known yet), the winner
 * marked. */
function slot(m, who, nameOf) {
  const won = who !== null && m.winner === who;
  const lost = who !== null && m.winner !== null && m.winner !== who;
  return h(
    "li",
    {
      class: `slot${won ? " won" : ""}${lost ? " lost" : ""}`,
      "data-testid": "bracket-player",
      "data-player": who || "",
      "data-won": won ? "true" : "false",
    },
    who ? nameOf(who) : m.bye ? "(bye)" : h("span", { class: "muted" }, "to be decided"),
    won ? h("span", { class: "mark", "aria-label": "winner", role: "img" }, " \u2714") : null,
  );
}

/** A match of the bracket: a box with both players, its table's link, and how it was decided
 * when that was not at the table. */
function matchBox(m, column, title, nameOf) {
  const name = m.thirdPlace ? "Third place" : `${title}, match ${m.board}`;
  const box = h(
    "section",
    {
      class: `bracket-match${m.winner ? " decided" : ""}${m.bye ? " bye" : ""}`,
      "data-testid": "bracket-match",
      "data-round": m.round,
      "data-board": m.board,
      "data-winner": m.winner || "",
      "aria-label": name,
    },
    m.thirdPlace ? h("p", { class: "bracket-note" }, "Third place") : null,
    h("ul", {}, slot(m, m.a, nameOf), slot(m, m.b, nameOf)),
    m.tableId ? tableLink(m.tableId, `Table of ${name}: ${nameOf(m.a)} v ${nameOf(m.b)}`, "bracket-table") : null,
    m.how && m.how !== "bye" && m.how !== "match"
      ? h("p", { class: "bracket-note" }, howText({ ...m, decided: true, forfeit: false }, nameOf))
      : null,
  );
  return styled(box, { "grid-column": column, "grid-row": `${m.row + 1} / span ${m.span}` });
}

/** A knockout's bracket: the rounds as columns, each match a box with both players. */
function bracket(view, nameOf) {
  const layout = bracketLayout(view);
  if (!layout.columns.length) {
    return [h("h2", {}, "Bracket"), h("p", { class: "muted" }, "The bracket is drawn once two players have entered.")];
  }
  const grid = h(
    "div",
    { class: "bracket", "data-testid": "bracket" },
    layout.columns.map((col, c) => [
      styled(h("h3", { class: "bracket-round" }, col.title), { "grid-column": c + 1, "grid-row": 1 }),
      col.matches.map((m) => matchBox(m, c + 1, col.title, nameOf)),
    ]),
  );
  styled(grid, { "--rows": layout.rows, "--columns": layout.columns.length });
  return [h("h2", {}, "Bracket"), h("div", { class: "scroll bracket-box" }, grid)];
}

/** A Swiss's or a round robin's standings, with the tie-breaks its format ranks by. */
function standings(view, nameOf) {
  const cols = standingColumns(view.options.format);
  return [
    h("h2", {}, "Standings"),
    h(
      "div",
      { class: "scroll" },
      h(
        "table",
        { class: "ledger standings", "data-testid": "standings" },
        h("thead", {}, h("tr", {}, cols.map(([, label]) => h("th", { scope: "col" }, label)))),
        h(
          "tbody",
          {},
          (view.standings || []).map((s) =>
            h(
              "tr",
              { "data-testid": "standing", "data-player": s.player, class: s.withdrawn ? "out" : "" },
              cols.map(([key]) =>
                key === "player"
                  ? h("td", {}, playerLink(s.player, nameOf(s.player)), s.withdrawn ? " (withdrawn)" : "")
                  : h("td", { "data-key": key }, String(s[key])),
              ),
            ),
          ),
        ),
      ),
    ),
  ];
}

/** One round's boards: who meets whom, the table, how it was decided. */
function roundList(r, view, nameOf) {
  return h(
    "section",
    { class: "round", "data-testid": "round", "data-round": r.round, "aria-labelledby": `round-${r.round}-title` },
    h("h3", { id: `round-${r.round}-title` }, `Round ${r.round}${r.complete ? "" : " (playing)"}`),
    h(
      "ul",
      { class: "boards" },
      r.boards.map((b) =>
        h(
          "li",
          { "data-testid": "board", "data-board": b.board, "data-winner": b.winner || "" },
          `Board ${b.board}: `,
          h("strong", {}, nameOf(b.a)),
          b.b ? [" v ", h("strong", {}, nameOf(b.b))] : " (bye)",
          " \u2014 ",
          h("span", { "data-testid": "board-result" }, howText(b, nameOf) || "to play"),
          b.table_id ? [" ", tableLink(b.table_id, `Table of round ${r.round}, board ${b.board}: ${nameOf(b.a)} v ${nameOf(b.b)}`, "board-table")] : "",
        ),
      ),
    ),
  );
}

/** The director's form: a decided board's result changed, for a reason (recorded with it). */
function adjustForm(id, drawn, showError) {
  const round = h("select", { id: "adjust-round", "data-testid": "adjust-round" });
  const board = h("select", { id: "adjust-board", "data-testid": "adjust-board" });
  const winner = h("select", { id: "adjust-winner", "data-testid": "adjust-winner" });
  const reason = h("input", { id: "adjust-reason", "data-testid": "adjust-reason", maxlength: 500, required: true });
  let view = null;
  let nameOf = () => "";
  const fill = (select, options) => {
    const before = select.value;
    replace(select, options.map(([v, t]) => h("option", { value: v }, t)));
    if (options.some(([v]) => v === before)) select.value = before;
  };
  const boards = () => {
    const r = view?.rounds.find((x) => String(x.round) === round.value);
    fill(board, (r?.boards || []).filter((b) => b.decided && b.b).map((b) => [String(b.board), `Board ${b.board}: ${nameOf(b.a)} v ${nameOf(b.b)}`]));
    winners();
  };
  const none = h("p", { class: "muted", "data-testid": "adjust-none" }, "No result of this round is decided yet.");
  const winners = () => {
    const r = view?.rounds.find((x) => String(x.round) === round.value);
    const b = r?.boards.find((x) => String(x.board) === board.value);
    const options = b ? [[b.a, nameOf(b.a)], [b.b, nameOf(b.b)]] : [];
    if (b && view.options.format !== "knockout") options.push(["", "Nobody (both forfeit)"]);
    fill(winner, options);
    none.hidden = Boolean(b);
    root.querySelector("button[type=submit]").disabled = !b;
  };
  round.addEventListener("change", boards);
  board.addEventListener("change", winners);
  const root = h(
    "form",
    {
      class: "card create",
      "aria-labelledby": "adjust-title",
      "data-testid": "adjust-form",
      hidden: true,
      onsubmit: async (ev) => {
        ev.preventDefault();
        const button = root.querySelector("button[type=submit]");
        button.disabled = true;
        try {
          const body = {
            command_id: uuid4(),
            round: Number(round.value),
            board: Number(board.value),
            winner: winner.value || null,
            forfeit: !winner.value,
            reason: reason.value,
          };
          drawn(await request("POST", `/tournaments/${enc(id)}/adjust`, body));
          reason.value = "";
        } catch (err) {
          showError(`The result was not changed: ${err.message}`);
        } finally {
          button.disabled = !board.value;
        }
      },
    },
    h("h2", { id: "adjust-title" }, "Adjust a result"),
    h("p", { class: "muted" }, "As the director you may change a decided result, for a reason everyone sees (a knockout's only until the next round is paired)."),
    h(
      "div",
      { class: "options" },
      field("adjust-round", "Round", round),
      field("adjust-board", "Board", board),
      field("adjust-winner", "Winner", winner),
      field("adjust-reason", "Reason", reason),
    ),
    none,
    h("button", { type: "submit", "data-testid": "adjust-submit" }, "Change the result"),
  );
  return {
    root,
    update(v, may, names) {
      view = v;
      nameOf = names;
      root.hidden = !may;
      if (!may) return;
      // A knockout's result stands once the next round is paired from it: only the last round.
      const open = v.options.format === "knockout" ? v.rounds.slice(-1) : v.rounds;
      fill(round, open.map((r) => [String(r.round), `Round ${r.round}`]));
      boards();
    },
  };
}

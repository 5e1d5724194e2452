// The social pages and panels (issue 15): a player's profile (#/player/<name>), the
// leaderboards (#/leaderboards), an invitation link (#/invite/<code>), the caller's private
// tables, a private table's invitations (for its creator) and a rated match's rating change.

import { request, session } from "../lib/api.js";
import { h, replace } from "../lib/dom.js";

const KIND_NAMES = { money: "Money", match: "Matches", chouette: "Chouettes" };
const enc = encodeURIComponent;

/** A rating or a change, as the server keeps them (six decimals), shown to two. */
export function ratingText(r) {
  return Number(r).toFixed(2);
}

export function signedRating(change) {
  const text = Math.abs(change).toFixed(2);
  return change > 0 ? `+${text}` : change < 0 ? `\u2212${text}` : "\u00b10.00";
}

/** A link to a player's profile (by username, or by account id as the events name players). */
export function playerLink(idOrName, label) {
  return h("a", { href: `#/player/${enc(idOrName)}`, class: "player-link", "data-testid": "player-link" }, label);
}

function duration(seconds) {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours ? `${hours} h ${minutes} min` : `${minutes} min`;
}

function day(ms) {
  return ms ? new Date(ms).toLocaleDateString() : "";
}

function failed(main, title, err) {
  replace(main, h("h1", {}, title), h("p", { "data-testid": "social-error" }, err.message), h("p", {}, h("a", { href: "#/lobby" }, "Back to the lobby")));
}

/** #/player/<name>: the profile page. */
export function profilePage(main, name) {
  let stopped = false;
  replace(main, h("p", { class: "muted" }, "Loading the profile\u2026"));
  request("GET", `/players/${enc(name)}?recent=20`)
    .then((p) => {
      if (stopped) return;
      const stats = Object.entries(p.stats || {});
      replace(
        main,
        h(
          "section",
          { class: "profile", "aria-labelledby": "profile-title", "data-testid": "profile" },
          h("h1", { id: "profile-title", "data-testid": "profile-name" }, p.display_name),
          h(
            "p",
            { class: "muted" },
            `${p.username}${p.guest ? " (guest)" : ""}${p.bot ? " (bot)" : ""} \u2014 joined ${new Date(p.joined).toLocaleDateString()}`,
          ),
          p.rating
            ? h(
                "p",
                { "data-testid": "profile-rating" },
                `Rating ${ratingText(p.rating.rating)}, experience ${p.rating.experience} (${p.rating.won} of ${p.rating.matches} rated matches won)`,
              )
            : h("p", { class: "muted" }, "Not rated (guests and bots are not)."),
          h("h2", {}, "Statistics"),
          stats.length
            ? h(
                "table",
                { class: "lobby", "data-testid": "profile-stats" },
                h("thead", {}, h("tr", {}, ["", "Games", "Won", "Matches", "Matches won", "Gammons", "Ledger", "Time played"].map((c) => h("th", { scope: "col" }, c)))),
                h(
                  "tbody",
                  {},
                  stats.map(([kind, s]) =>
                    h(
                      "tr",
                      { "data-kind": kind },
                      h("th", { scope: "row" }, KIND_NAMES[kind] || kind),
                      [s.games, s.games_won, s.matches, s.matches_won, s.gammons, s.ledger, duration(s.seconds_played)].map((v) => h("td", {}, String(v))),
                    ),
                  ),
                ),
              )
            : h("p", { class: "muted" }, "No games yet."),
          h("h2", {}, "Recent tables"),
          h(
            "ul",
            { "data-testid": "profile-tables" },
            (p.recent_tables || []).map((t) =>
              h(
                "li",
                {},
                h("a", { href: `#/replay/${enc(t.table_id)}` }, t.name || `${t.kind} table`),
                ` \u2014 ${t.kind}, ${t.games} game${t.games === 1 ? "" : "s"}, ledger ${t.ledger}, ${day(t.last_at)}`,
                t.rating_change === null ? "" : ` (rating ${signedRating(t.rating_change)})`,
                t.private ? " (private)" : "",
              ),
            ),
          ),
          h("h2", {}, "Rated matches"),
          (p.rating_history || []).length
            ? h(
                "ul",
                { "data-testid": "profile-history" },
                p.rating_history.map((c) =>
                  h(
                    "li",
                    {},
                    `${c.won ? "Won" : "Lost"} a ${c.length}-point match: ${ratingText(c.rating_before)} \u2192 ${ratingText(c.rating_after)} (${signedRating(c.change)}) `,
                    h("a", { href: `#/replay/${enc(c.table_id)}` }, "replay"),
                  ),
                ),
              )
            : h("p", { class: "muted" }, "None yet."),
        ),
      );
    })
    .catch((err) => !stopped && failed(main, "No such player", err));
  return () => {
    stopped = true;
  };
}

/** #/leaderboards: by rating, and by chouette winnings over a period. */
export function leaderboardsPage(main, { showError }) {
  const ratingBody = h("tbody", { "data-testid": "rating-board" });
  const chouetteBody = h("tbody", { "data-testid": "chouette-board" });
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.now() - 29 * 86400000).toISOString().slice(0, 10);
  const since = h("input", { id: "board-since", type: "date", value: monthAgo, "data-testid": "board-since" });
  const until = h("input", { id: "board-until", type: "date", value: today, "data-testid": "board-until" });
  const note = h("p", { class: "muted", "data-testid": "rating-note" });
  const row = (cells) => h("tr", {}, cells.map((c, i) => (i === 1 ? h("td", {}, c) : h("td", {}, String(c)))));
  const loadRating = async () => {
    try {
      const b = await request("GET", "/leaderboards/rating");
      note.textContent = `Players with at least ${b.min_experience} points of rated matches.`;
      replace(ratingBody, b.players.length ? b.players.map((p) => row([p.rank, playerLink(p.username, p.display_name), ratingText(p.rating), p.experience])) : h("tr", {}, h("td", { colspan: 4, class: "muted" }, "Nobody yet.")));
    } catch (err) {
      showError(err.message);
    }
  };
  const loadChouette = async () => {
    try {
      const b = await request("GET", `/leaderboards/chouette?since=${enc(since.value)}&until=${enc(until.value)}`);
      replace(chouetteBody, b.players.length ? b.players.map((p) => row([p.rank, playerLink(p.username, p.display_name), p.amount, p.games])) : h("tr", {}, h("td", { colspan: 4, class: "muted" }, "No chouette games in this period.")));
    } catch (err) {
      showError(err.message);
    }
  };
  const head = (cols) => h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c))));
  replace(
    main,
    h(
      "section",
      { "aria-labelledby": "boards-title" },
      h("h1", { id: "boards-title" }, "Leaderboards"),
      h("h2", {}, "Rating"),
      note,
      h("table", { class: "lobby" }, head(["#", "Player", "Rating", "Experience"]), ratingBody),
      h("h2", {}, "Chouette winnings"),
      h(
        "form",
        { class: "toolbar", onsubmit: (ev) => (ev.preventDefault(), loadChouette()) },
        h("label", { for: "board-since" }, "From"),
        since,
        h("label", { for: "board-until" }, "to"),
        until,
        h("button", { type: "submit", "data-testid": "board-show" }, "Show"),
      ),
      h("table", { class: "lobby" }, head(["#", "Player", "Points", "Games"]), chouetteBody),
    ),
  );
  loadRating();
  loadChouette();
  return null;
}

/** #/invite/<code>: redeem an invitation, then open its table. */
export function invitePage(main, code, { go }) {
  if (!session()) {
    // The page adds the ways in below: once in, it opens the invitation (and so the table).
    replace(main, h("h1", {}, "An invitation"), h("p", { "data-testid": "invite-get-in" }, "Get in below, and the invitation opens its table."));
    return null;
  }
  replace(main, h("p", { class: "muted" }, "Opening the invitation\u2026"));
  request("POST", "/invitations", { code })
    .then((t) => go(`#/table/${t.table_id}`))
    .catch((err) => failed(main, "This invitation does not work", err));
  return null;
}

/** The signed-in player's private tables, found by name (a club's standing chouette). */
export function myTablesPanel() {
  const list = h("ul", { "data-testid": "my-tables" });
  const name = h("input", { id: "my-tables-name", "data-testid": "my-tables-name", maxlength: 100, placeholder: "part of the name" });
  const load = async () => {
    try {
      const r = await request("GET", `/me/tables?name=${enc(name.value.trim())}`);
      replace(list, r.tables.length ? r.tables.map((t) => h("li", {}, h("a", { href: `#/table/${enc(t.table_id)}` }, t.name || `${t.kind} table`), t.mine ? " (yours)" : "")) : h("li", { class: "muted" }, "None."));
    } catch (err) {
      replace(list, h("li", { class: "muted" }, err.message));
    }
  };
  load();
  return h(
    "section",
    { class: "card", "aria-labelledby": "my-tables-title" },
    h("h2", { id: "my-tables-title" }, "Your private tables"),
    h("form", { class: "toolbar", onsubmit: (ev) => (ev.preventDefault(), load()) }, h("label", { for: "my-tables-name" }, "Find by name"), name, h("button", { type: "submit", class: "secondary" }, "Find")),
    list,
  );
}

/**
 * The table page's social line: a rated match's rating change once it is over, and for the
 * creator of a private table its invitations. Returns {root, update(view)}.
 */
export function tableSocial(tableId) {
  const root = h("div", { class: "social", "data-testid": "table-social" });
  const me = session();
  let shownRating = false;
  let shownInvites = false;
  const invites = h("div", { "data-testid": "invitations" });
  const loadInvites = async () => {
    try {
      const r = await request("GET", `/tables/${enc(tableId)}/invitations`);
      replace(
        invites,
        h(
          "ul",
          {},
          r.invitations.map((i) =>
            h(
              "li",
              {},
              `Invitation made ${new Date(i.created_at).toLocaleString()}, used by ${i.redeemed_by}`,
              i.revoked_at
                ? " (revoked)"
                : [" ", h("button", { type: "button", class: "link", "data-testid": "revoke-invitation", onclick: async () => { await request("DELETE", `/tables/${enc(tableId)}/invitations/${enc(i.invitation_id)}`); loadInvites(); } }, "Revoke")],
            ),
          ),
        ),
      );
    } catch (err) {
      replace(invites, err.message);
    }
  };
  const link = h("p", { "data-testid": "invitation-link" });
  const update = async (view) => {
    if (!view) return;
    if (!shownInvites && view.options && view.options.private && me && view.created_by === me.account_id) {
      shownInvites = true;
      root.append(
        h(
          "section",
          { class: "panel", "aria-labelledby": "invite-title" },
          h("h2", { id: "invite-title" }, "Private table: invitations"),
          h(
            "button",
            {
              type: "button",
              "data-testid": "make-invitation",
              onclick: async () => {
                const made = await request("POST", `/tables/${enc(tableId)}/invitations`);
                const url = `${location.origin}/${made.link.replace(/^\//, "")}`;
                replace(link, "Send this link (shown once): ", h("code", { "data-testid": "invitation-url" }, url));
                loadInvites();
              },
            },
            "Make an invitation link",
          ),
          link,
          invites,
        ),
      );
      loadInvites();
    }
    if (!shownRating && view.kind === "match" && view.options && view.options.rated && view.match_winner) {
      shownRating = true;
      // The ratings are a read model: a moment behind the match's end.
      for (let attempt = 0; attempt < 10; attempt++) {
        const r = await request("GET", `/tables/${enc(tableId)}/ratings`).catch(() => null);
        if (r && r.changes.length) {
          root.prepend(
            h(
              "p",
              { class: "rating-change", "data-testid": "rating-change", role: "status" },
              "Ratings: ",
              r.changes.map((c, i) => [i ? "; " : "", playerLink(c.player, c.player === view.match_winner ? "the winner" : "the loser"), ` ${signedRating(c.change)} (${ratingText(c.rating_after)})`]),
            ),
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  return { root, update };
}

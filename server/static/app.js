// The page: routes by location.hash (#/lobby, #/table/<id>, #/replay/<id>[/<version>],
// #/player/<name>, #/leaderboards, #/invite/<code>, #/night/<tables>[/<since>[/<until>]],
// #/tournaments, #/tournament/<id>), the header's account area, and the page-wide error and
// connection notices.

import { onSession, session } from "./lib/api.js";
import { authPanel, whoAmI } from "./pages/auth.js";
import { h, replace } from "./lib/dom.js";
import { lobbyPage } from "./pages/lobby.js";
import { nightPage } from "./pages/night.js";
import { replayPage } from "./pages/replay.js";
import { invitePage, leaderboardsPage, profilePage } from "./pages/social.js";
import { tablePage } from "./table/table.js";
import { tournamentPage, tournamentsPage } from "./pages/tournaments.js";

const main = document.getElementById("main");
const who = document.getElementById("who");
const errorBox = document.getElementById("error");
const noticeBox = document.getElementById("notice");

let cleanup = null;
let shownToken = null; // the session's token when the page was last drawn
let errorTimer = null;

function showError(text) {
  clearTimeout(errorTimer);
  replace(
    errorBox,
    h("span", { "data-testid": "error-text" }, text),
    " ",
    h("button", { type: "button", class: "link", "data-testid": "error-dismiss", onclick: () => showError(null) }, "Dismiss"),
  );
  errorBox.hidden = !text;
  if (text) errorTimer = setTimeout(() => showError(null), 12000);
}

function notice(text) {
  noticeBox.textContent = text || "";
  noticeBox.hidden = !text;
}

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/** Draw the page again if the session changed since it was drawn (a log-in, a log-out). */
function again() {
  if ((session()?.token ?? null) !== shownToken) route();
}

function header() {
  replace(who, whoAmI(again));
}

function route() {
  shownToken = session()?.token ?? null;
  if (cleanup) cleanup();
  cleanup = null;
  showError(null);
  notice(null);
  header();
  const parts = (location.hash || "#/lobby").replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const ctx = { showError, go, notice };
  const [page, id, extra] = parts;
  if (page === "table" && id) {
    cleanup = tablePage(main, id, ctx);
    if (!session()) {
      // Getting in here keeps the page at this table: the link someone was sent lands on it.
      main.prepend(
        h(
          "div",
          { class: "banner", "data-testid": "watching-banner" },
          "You are watching. ",
          h(
            "details",
            { class: "table-get-in", "data-testid": "table-get-in" },
            h("summary", { "data-testid": "table-get-in-open" }, "Get in or log in to play"),
            authPanel(again, showError),
          ),
        ),
      );
    }
  } else if (page === "replay" && id) {
    cleanup = replayPage(main, id, { ...ctx, at: extra });
  } else if (page === "player" && id) {
    cleanup = profilePage(main, id, ctx);
  } else if (page === "leaderboards") {
    cleanup = leaderboardsPage(main, ctx);
  } else if (page === "night") {
    cleanup = nightPage(main, id, { ...ctx, since: extra, until: parts[3] });
  } else if (page === "tournaments") {
    cleanup = tournamentsPage(main, ctx);
  } else if (page === "tournament" && id) {
    cleanup = tournamentPage(main, id, ctx);
  } else if (page === "invite" && id) {
    cleanup = invitePage(main, id, ctx);
    if (!session()) main.append(authPanel(again, showError));
  } else {
    if (!session()) {
      replace(main);
      main.append(authPanel(again, showError));
      const rest = h("div");
      main.append(rest);
      cleanup = lobbyPage(rest, ctx);
    } else {
      cleanup = lobbyPage(main, ctx);
    }
  }
  document.title = { table: "Table", replay: "Replay" }[page] ? `${{ table: "Table", replay: "Replay" }[page]} \u2014 Chouette` : "Chouette";
  main.focus({ preventScroll: true });
}

// The skip link focuses the content without touching the hash (the hash is the route).
document.querySelector(".skip")?.addEventListener("click", (ev) => {
  ev.preventDefault();
  main.focus();
});
window.addEventListener("hashchange", route);
// A log-in or log-out in another tab (or a token the server no longer takes) changes who this
// tab is: it draws its page again as that player, at the same address.
onSession(again);
route();

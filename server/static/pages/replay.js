// Replay and fairness: step or slide through a table's versions (GET /tables/{id}/replay?at=N),
// re-derive each finished game's dice in the browser and compare them with the record (dice.js,
// Web Crypto), run the server's audit, and download the games as a .mat file.

import { analysisPanel } from "./analysis.js";
import { api, matUrl, socketUrl } from "../lib/api.js";
import { Board } from "../board/board.js";
import { verifyEvents, gamesFromEvents, hashImplementation } from "../fair/dice.js";
import { h, replace } from "../lib/dom.js";
import { cubesFromView } from "../board/geometry.js";
import { namer, signed } from "../lib/names.js";

const decoder = new TextDecoder();

/** Every event of the table stream up to `head`, read from the WebSocket from the start. */
export async function readTableEvents(tableId, head, { timeoutMs = 20000 } = {}) {
  if (head < 1) return [];
  const url = await socketUrl(tableId, 0, 0);
  return new Promise((resolve, reject) => {
    const events = [];
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error(`only ${events.length} of ${head} events arrived in time`));
    }, timeoutMs);
    ws.onmessage = (m) => {
      const msg = JSON.parse(typeof m.data === "string" ? m.data : decoder.decode(m.data));
      if (msg.ctl === "resync") {
        clearTimeout(timer);
        ws.close();
        reject(new Error(`the server cannot send the table from the start (${msg.reason})`));
        return;
      }
      if (msg.s !== "table" || msg.v !== events.length + 1) return;
      events.push(msg);
      if (msg.v >= head) {
        clearTimeout(timer);
        ws.close(1000, "read");
        resolve(events);
      }
    };
    ws.onclose = () => {
      clearTimeout(timer);
      if (events.length < head) reject(new Error(`the connection closed after ${events.length} of ${head} events`));
    };
  });
}

/** The replay page; returns its cleanup. */
export function replayPage(main, tableId, { showError, at: wanted }) {
  let stopped = false;
  let head = 0;
  let at = 0;
  let token = 0;
  let last = null;

  const slider = h("input", {
    type: "range",
    id: "replay-slider",
    min: 1,
    max: 1,
    value: 1,
    step: 1,
    "data-testid": "replay-slider",
    "aria-label": "Version",
    oninput: (ev) => show(Number(ev.target.value)),
  });
  const atText = h("p", { "data-testid": "replay-at", "aria-live": "polite" }, "Loading\u2026");
  const eventText = h("p", { class: "event-text", "data-testid": "replay-event" });
  const statusText = h("p", { class: "status", "data-testid": "replay-status" });
  const sideTop = h("div", { class: "side-bar opponent", "data-testid": "replay-side-1" });
  const sideBottom = h("div", { class: "side-bar viewer", "data-testid": "replay-side-0" });
  const boardBox = h("div", { class: "board-box" });
  const board = new Board(boardBox, {});
  const extra = h("div", { class: "replay-extra", "data-testid": "replay-extra" });
  const games = h("div", { class: "games", "data-testid": "fair-games" }, h("p", { class: "muted" }, "Loading the games\u2026"));
  const audit = h("pre", { class: "audit", "data-testid": "audit-result", "aria-live": "polite", "aria-label": "Audit result", tabindex: 0 });
  const downloads = h("p", { class: "downloads", "data-testid": "downloads" });
  let nameOfPlayer = null;
  const analysis = analysisPanel(tableId, { show: (v) => show(v), nameOf: (id) => (nameOfPlayer ? nameOfPlayer(id) : id) });
  const step = (label, testid, fn) => h("button", { type: "button", class: "secondary", "data-testid": testid, onclick: fn }, label);

  replace(
    main,
    h(
      "section",
      { class: "replay-page", "aria-labelledby": "replay-title" },
      h(
        "header",
        { class: "table-head" },
        h("h1", { id: "replay-title", "data-testid": "replay-title" }, "Replay"),
        h(
          "nav",
          { class: "links", "aria-label": "Replay links" },
          h("a", { href: "#/lobby" }, "Lobby"),
          h("a", { href: `#/table/${tableId}`, "data-testid": "table-link" }, "Back to the table"),
        ),
      ),
      h(
        "div",
        { class: "play-area" },
        h(
          "div",
          { class: "board-col" },
          h(
            "div",
            { class: "replay-controls", role: "group", "aria-label": "Step through the versions" },
            step("\u00AB First", "replay-first", () => show(1)),
            step("\u25C0 Back", "replay-prev", () => show(at - 1)),
            h("label", { for: "replay-slider", class: "visually-hidden" }, "Version"),
            slider,
            step("Next \u25B6", "replay-next", () => show(at + 1)),
            step("Last \u00BB", "replay-last", () => show(head)),
          ),
          atText,
          eventText,
          statusText,
          sideTop,
          boardBox,
          sideBottom,
          extra,
        ),
        h(
          "div",
          { class: "info-col" },
          h(
            "section",
            { class: "panel", "aria-labelledby": "games-title" },
            h("h2", { id: "games-title" }, "Fair dice, game by game"),
            h(
              "p",
              { class: "muted" },
              "Each game's seed is committed to (SHA-256) before its first throw and revealed when it ends. Verify re-derives every throw here, in your browser.",
            ),
            h("button", { type: "button", "data-testid": "verify-all", onclick: () => verifyAll() }, "Verify every finished game"),
            games,
          ),
          h(
            "section",
            { class: "panel", "aria-labelledby": "audit-title" },
            h("h2", { id: "audit-title" }, "Audit"),
            h("p", { class: "muted" }, "The server re-decides every event through the rules and checks every throw and the hash chain."),
            h("button", { type: "button", "data-testid": "run-audit", onclick: () => runAudit() }, "Run audit"),
            audit,
          ),
          analysis.panel,
          h("section", { class: "panel", "aria-labelledby": "export-title" }, h("h2", { id: "export-title" }, "Export"), downloads),
        ),
      ),
    ),
  );

  async function show(version) {
    if (!head) return;
    const target = Math.max(1, Math.min(head, version));
    at = target;
    slider.value = String(target);
    atText.textContent = `Version ${target} of ${head}`;
    // The address names the version shown (a link to it), without a new history entry.
    history.replaceState(null, "", `#/replay/${encodeURIComponent(tableId)}/${target}`);
    const mine = ++token;
    try {
      const body = await api.replay(tableId, target);
      if (stopped || mine !== token) return;
      if (body.version > head) {
        head = body.version;
        slider.max = String(head);
        atText.textContent = `Version ${target} of ${head}`;
      }
      draw(body);
    } catch (err) {
      if (mine === token) showError(err.message);
    }
  }

  function draw(body) {
    last = body;
    const view = body.table;
    const nameOf = namer(view, null);
    const ev = body.event || {};
    eventText.textContent = `${ev.type || ""}${ev.text ? `: ${ev.text}` : ""}${ev.notation ? ` (${ev.notation})` : ""}`;
    eventText.dataset.type = ev.type || "";
    const game = view.game;
    statusText.textContent = game && game.status ? game.status : "";
    if (game && Array.isArray(game.sides)) {
      const [mine, theirs] = game.sides;
      // Every cube: a chouette's members' cubes each in its owner's end (the replay sees the team's side).
      const cubes = cubesFromView(game, null).map((c) => ({ ...c, name: c.member ? nameOf(c.member) : "" }));
      board.draw({
        viewer: mine.board,
        opponent: theirs.board,
        names: { viewer: mine.label, opponent: theirs.label },
        dice: game.dice ? { values: game.dice, side: game.turn === 1 ? "opponent" : "viewer" } : null,
        cubes,
        interactive: false,
        sources: new Set(),
        destinations: new Map(),
        selected: null,
      });
      board.svg.dataset.positionId = game.position_id || "";
      replace(sideTop, `${theirs.label} \u00B7 ${theirs.pips} pips \u00B7 ${theirs.off} off${game.turn === 1 ? " \u00B7 \u25B6 on turn" : ""}`);
      replace(sideBottom, `${mine.label} \u00B7 ${mine.pips} pips \u00B7 ${mine.off} off${game.turn === 0 ? " \u00B7 \u25B6 on turn" : ""}`);
    } else {
      const empty = new Array(26).fill(0);
      board.draw({ viewer: empty, opponent: empty, interactive: false, sources: new Set(), destinations: new Map(), selected: null });
      board.svg.dataset.positionId = "";
      replace(sideTop, "No game at this version.");
      replace(sideBottom, "");
    }
    const ledger = view.ledger || {};
    replace(
      extra,
      Array.isArray(view.score) && view.kind === "match"
        ? h("p", { "data-testid": "replay-score" }, `Score: ${(view.seats || []).map((id, i) => `${id ? nameOf(id) : `Seat ${i + 1}`} ${view.score[i]}`).join(" \u2013 ")}`)
        : null,
      Object.keys(ledger).length
        ? h("p", { "data-testid": "replay-ledger" }, `Ledger: ${Object.entries(ledger).map(([id, n]) => `${nameOf(id)} ${signed(n)}`).join(", ")}`)
        : null,
      view.kind === "chouette" && view.line && view.line.length
        ? h("p", { "data-testid": "replay-line" }, `Line: ${view.line.map((id) => nameOf(id)).join(", ")} (box first)`)
        : null,
    );
  }

  let events = null;
  let gameRows = new Map();

  async function loadGames() {
    try {
      events = await readTableEvents(tableId, head);
    } catch (err) {
      replace(games, h("p", { role: "alert" }, `The events could not be read: ${err.message}`));
      return;
    }
    if (stopped) return;
    const list = gamesFromEvents(events);
    gameRows = new Map();
    if (!list.length) {
      replace(games, h("p", { class: "muted" }, "No game has started yet."));
      return;
    }
    replace(
      games,
      h(
        "ol",
        { class: "game-list" },
        list.map((g) => {
          const result = h("p", { class: "verify-result", "data-testid": `verify-result-${g.game}`, "aria-live": "polite" });
          gameRows.set(g.game, result);
          const dice = g.throws.reduce((n, t) => n + t.dice.length, 0);
          return h(
            "li",
            { "data-testid": `game-${g.game}` },
            h("h3", {}, `Game ${g.game}`),
            h("dl", {}, [
              h("dt", {}, "Commitment"),
              h("dd", {}, h("code", { class: "hash", "data-testid": `commitment-${g.game}` }, g.commitment || "none")),
              h("dt", {}, "Revealed seed"),
              h("dd", {}, g.ended ? h("code", { class: "hash", "data-testid": `seed-${g.game}` }, g.seed || "none") : "secret until the game ends"),
              h("dt", {}, "Players' seeds"),
              h("dd", {}, g.clientSeeds.length ? g.clientSeeds.join(", ") : "none"),
              h("dt", {}, "Dice thrown"),
              h("dd", {}, String(dice)),
            ]),
            g.ended
              ? h("button", { type: "button", "data-testid": `verify-${g.game}`, onclick: () => verify(g.game) }, `Verify game ${g.game}`)
              : h("p", { class: "muted" }, "In play: it can be verified when it ends."),
            result,
          );
        }),
      ),
    );
  }

  async function verify(number) {
    const out = gameRows.get(number);
    if (!events || !out) return null;
    out.textContent = "Verifying\u2026";
    let results;
    try {
      results = await verifyEvents(events);
    } catch (err) {
      out.textContent = `Not checked: ${err.message}. This is no evidence against the dice.`;
      out.dataset.status = "error";
      return null;
    }
    const r = results.find((x) => x.game === number);
    if (!r) return null;
    out.dataset.status = r.status;
    if (r.status === "ok") {
      const own = hashImplementation() === "javascript" ? " (hashed by this page's own SHA-256: over plain HTTP the browser offers no Web Crypto)" : "";
      out.textContent = `\u2714 Pass: the seed matches the commitment and all ${r.checked} dice re-derived from it match the record${own}.`;
    } else if (r.status === "unchecked") {
      out.textContent = `Not checked: ${r.reason}. This is no evidence against the dice.`;
    } else if (r.status === "failed") {
      const bad = r.firstMismatch;
      out.textContent = !r.commitmentOk
        ? "\u2718 Fail: the revealed seed does not match the commitment."
        : `\u2718 Fail: die ${bad.counter + 1} (version ${r.version ?? "?"}) is recorded as ${bad.recorded}; the seed gives ${bad.expected}.`;
    } else {
      out.textContent = r.status === "pending" ? "Pending: the game is still in play." : "Not verifiable: the game's dice were never committed to.";
    }
    return r;
  }

  async function verifyAll() {
    for (const number of gameRows.keys()) await verify(number);
  }

  async function runAudit() {
    audit.textContent = "Running the audit\u2026";
    try {
      const report = await api.audit(tableId);
      const first = report.first_failure;
      const lines = [`Status: ${report.status} (${report.events} events)`];
      if (first) lines.push(`First failure: ${first.check} at ${first.stream} version ${first.version} (${first.event}): ${first.reason}`);
      for (const s of report.streams || []) {
        lines.push(`${s.stream}: ${s.status}; ${Object.entries(s.checks || {}).map(([k, v]) => `${k} ${v}`).join(", ")}`);
        if (s.games && s.games.started) {
          lines.push(`  games started ${s.games.started}; dice verified: ${(s.games.dice_verified || []).join(", ") || "none"}; pending: ${(s.games.pending || []).join(", ") || "none"}`);
        }
      }
      audit.textContent = lines.join("\n");
      audit.dataset.status = report.status;
    } catch (err) {
      audit.textContent = `The audit could not run: ${err.message}`;
      audit.dataset.status = "error";
    }
  }

  async function start() {
    try {
      const body = await api.replay(tableId, "");
      if (stopped) return;
      head = body.version;
      slider.max = String(head);
      const view = body.table;
      const nameOf = namer(view, null);
      nameOfPlayer = nameOf;
      replace(
        main.querySelector("#replay-title"),
        `Replay: ${view.name || { money: "Money table", match: "Match", chouette: "Chouette" }[view.kind] || "table"}`,
      );
      const members = (view.players || []).filter((p) => p.role !== "spectator" || (view.ledger && p.id in view.ledger));
      replace(
        downloads,
        view.kind === "chouette"
          ? [
              "Download each team member's games against the box: ",
              members.map((p, i) => [
                i ? ", " : "",
                h("a", { href: matUrl(tableId, p.id), download: "", "data-testid": `download-mat-${p.id}` }, `${nameOf(p.id)} (.mat)`),
              ]),
            ]
          : h("a", { href: matUrl(tableId), download: "", "data-testid": "download-mat" }, "Download the games (.mat)"),
      );
      await show(wanted ? Number(wanted) : head);
      loadGames();
    } catch (err) {
      replace(main, h("h1", {}, "No replay"), h("p", {}, err.message), h("p", {}, h("a", { href: "#/lobby" }, "Back to the lobby")));
    }
  }

  start();
  window.chouetteReplay = { show, verify, get last() { return last; }, get events() { return events; } };
  return () => {
    stopped = true;
  };
}

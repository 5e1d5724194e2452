// A table: the board from the viewer's side, the moves and the cube, the chouette's line and
// cubes, the score or the ledger, talk, and the live feed that keeps it all current.
//
// The page has no rules of its own: it draws `GET /tables/{id}`, offers the commands in
// `allowed` (and, for the box, the members in `targets`; a bot's seat when `may_seat_bot`), and
// lets the mover build a play only from the server's `play_tree`. On every event of the table
// stream it fetches the view again, except after a throw: the throw's message carries the legal
// plays and what each viewer's view says after it (`m`), and the view follows it.
//
// One page, in four files: this one (the skeleton, the view, the commands sent, the seed
// window, the status and the side panels), table_feed.js (the live feed), table_board.js (the
// board and the move being built) and table_actions.js (the commands offered). The other three
// hold methods of the page, mixed into it: they share its fields.

import { api, session } from "../lib/api.js";
import { Board } from "../board/board.js";
import { Chat } from "./chat.js";
import { clockSpan, presenceMark, refreshClocks } from "./clocks.js";
import { h, replace } from "../lib/dom.js";
import { TableFeed } from "../lib/live.js";
import { describeOptions } from "../pages/lobby.js";
import { renderFair, renderLine, renderScore, windowLeft } from "./panels.js";
import { namer, settlementText } from "../lib/names.js";
import { Shortcuts } from "./shortcuts.js";
import { tableSocial } from "../pages/social.js";
import { ActionPanel } from "./table_actions.js";
import { BoardPlay } from "./table_board.js";
import { FeedGlue } from "./table_feed.js";

const AUTO_KEY = "chouette.autoConfirm";
const KIND_NAMES = { money: "Money table", match: "Match", chouette: "Chouette" };
/** How long a command's answer may take before the page shows it is waiting for it (ms). */
const SLOW_ANSWER_MS = 100;
const ROLE_WORDS = {
  player: "You are playing.",
  box: "You are the box.",
  captain: "You are the captain.",
  member: "You are on the team.",
  waiting: "You play from the next game.",
  settled: "Your game is settled; you play again next game.",
  spectator: "You are watching.",
  anonymous: "You are watching (not signed in).",
};

/** The table page; returns its cleanup (closes the feed). */
export function tablePage(main, tableId, { showError, go, notice }) {
  const page = new TablePage(main, tableId, { showError, go, notice });
  page.start();
  return () => page.stop();
}

class TablePage {
  constructor(main, tableId, { showError, go, notice }) {
    this.main = main;
    this.id = tableId;
    this.showError = showError;
    this.go = go;
    this.notice = notice;
    this.me = session()?.account_id ?? null;
    this.view = null;
    this.made = [];
    this.selected = null;
    this.turnKey = "";
    this.sending = false;
    this.doubleChoice = new Map(); // member -> checked, for the box's double
    this.resignChoice = new Map(); // member -> checked, for the box's resignation
    this.autoConfirm = localStorage.getItem(AUTO_KEY) === "1";
    this.fetching = null;
    this.fetchAgain = false;
    this.nameOf = (id) => id;
    this.connected = new Set(); // account ids with a stream open to the table
    this.feedOpen = false;
    this.build();
  }

  // -- the page's skeleton; panels are refilled on every view --------------------------------

  build() {
    this.title = h("h1", { id: "table-title", "data-testid": "table-title" }, "Table");
    this.roleLine = h("p", { class: "role", "data-testid": "role" });
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite", "data-testid": "status" });
    this.say = h("p", { class: "visually-hidden", "aria-live": "assertive", "data-testid": "move-announce" });
    // The last game's end, as the stream told it (the next game may start at once, and a
    // two-player table's view keeps no history).
    this.resultLine = h("p", { class: "last-result", "aria-live": "polite", "data-testid": "last-result", hidden: true });
    this.lastResult = null;
    this.sideTop = h("div", { class: "side-bar opponent", "data-testid": "side-1" });
    this.sideBottom = h("div", { class: "side-bar viewer", "data-testid": "side-0" });
    this.diceText = h("p", { class: "dice-text", "data-testid": "dice", "aria-live": "polite" });
    const boardBox = h("div", { class: "board-box" });
    this.board = new Board(boardBox, {
      onActivate: (p) => this.activate(p),
      onDrag: (from, to) => this.drag(from, to),
    });
    this.moveInput = h("input", {
      id: "move-input",
      "data-testid": "move-input",
      autocomplete: "off",
      spellcheck: "false",
      placeholder: "e.g. 13/7 8/7",
    });
    this.autoBox = h("input", {
      id: "auto-confirm",
      type: "checkbox",
      "data-testid": "auto-confirm",
      checked: this.autoConfirm,
      onchange: (ev) => {
        this.autoConfirm = ev.target.checked;
        localStorage.setItem(AUTO_KEY, this.autoConfirm ? "1" : "0");
      },
    });
    this.moveForm = h(
      "form",
      {
        class: "move-form",
        onsubmit: (ev) => {
          ev.preventDefault();
          this.typed();
        },
      },
      h("label", { for: "move-input" }, "Type a play"),
      this.moveInput,
      h("button", { type: "submit", "data-testid": "move-submit" }, "Play"),
    );
    this.movePanel = h("div", { class: "move-panel", "data-testid": "move-panel" });
    this.actions = h("div", { class: "actions", "data-testid": "actions", role: "group", "aria-label": "What you can do" });
    this.scorePanel = h("section", { class: "panel", "aria-labelledby": "score-title" });
    this.linePanel = h("section", { class: "panel", "aria-labelledby": "line-title" });
    this.fairPanel = h("section", { class: "panel", "aria-labelledby": "fair-title" });
    this.seedInput = h("input", { id: "seed-input", "data-testid": "seed-input", maxlength: 128, autocomplete: "off" });
    this.chat = new Chat({ send: (channel, text) => this.post(channel, text), nameOf: (id) => this.nameOf(id) });
    // Keys for the common commands, and their list behind "?" (shortcuts.js).
    this.shortcuts = new Shortcuts(this.main, { tell: (text) => this.tell(text) });
    replace(
      this.main,
      h(
        "section",
        { class: "table-page", "aria-labelledby": "table-title" },
        h(
          "header",
          { class: "table-head" },
          this.title,
          this.roleLine,
          h(
            "nav",
            { class: "links", "aria-label": "Table links" },
            h("a", { href: "#/lobby", "data-testid": "back-to-lobby" }, "Lobby"),
            h("a", { href: `#/replay/${this.id}`, "data-testid": "replay-link" }, "Replay", h("span", { class: "wide-only" }, " and fairness")),
            // A tournament's match: back to its bracket or standings (GET /tables/{id} says
            // which; a command's answer does not, so the link stays once known).
            (this.tournamentLink = h("a", { "data-testid": "tournament-link", hidden: true }, "Tournament")),
            (this.nightLink = h("a", { href: `#/night/${this.id}`, "data-testid": "night-link", hidden: true }, "Night", h("span", { class: "wide-only" }, "'s ledger"))),
            this.shortcuts.button,
          ),
          // Leaving, apart from the game's actions (table_actions.js, renderLeave).
          (this.leaveBox = h("div", { class: "leave-box" })),
        ),
        // The board, and beside it (below it on a phone) what the player decides now: the
        // status, the dice, the move and the actions, always in view; the panels (ledger,
        // line, talk, fair dice) after them, scrolling on their own beside the board.
        h(
          "div",
          { class: "play-area" },
          h("div", { class: "board-col" }, this.sideTop, boardBox, this.sideBottom),
          h(
            "div",
            { class: "side-col" },
            h("div", { class: "decision", "data-testid": "decision" }, this.status, this.diceText, this.movePanel, this.actions, this.resultLine, this.say),
            h(
              "div",
              { class: "info-col" },
              (this.seatSlot = h("p", { class: "seat-slot" })),
              (this.social = tableSocial(this.id)).root,
              this.scorePanel,
              this.linePanel,
              this.chat.root,
              this.fairPanel,
            ),
          ),
        ),
      ),
    );
    this.main.append(this.shortcuts.dialog);
  }

  async start() {
    this.stopped = false;
    this.shortcuts.attach();
    try {
      const view = await api.table(this.id);
      if (this.stopped) return;
      this.apply(view);
      this.feed = new TableFeed(this.id, {
        onEvent: (msg) => this.event(msg),
        onResync: () => this.refetch(),
        onConnection: (state) => this.connection(state),
        onPresence: (msg) => {
          this.connected = new Set(msg.connected || []);
          this.renderLine();
        },
      });
      this.feed.start(view.version, 0);
      // The clocks count down each second (plain text: nothing is spoken each second).
      this.clockTimer = setInterval(() => refreshClocks(this.main, this.view, this.elapsed()), 1000);
      window.chouetteDebug = { feed: this.feed, page: this };
    } catch (err) {
      replace(
        this.main,
        h("h1", {}, "Table not found"),
        h("p", {}, err.message),
        h("p", {}, h("a", { href: "#/lobby" }, "Back to the lobby")),
      );
    }
  }

  stop() {
    this.stopped = true;
    this.shortcuts.detach();
    clearInterval(this.clockTimer);
    clearTimeout(this.followTimer);
    if (this.feed) this.feed.stop();
    this.notice(null);
  }

  // -- commands --------------------------------------------------------------------------------

  async send(command) {
    if (this.sending) return false;
    this.sending = true;
    const sent = api.command(this.id, command);
    // The page draws itself waiting (its buttons disabled) only if the answer is slow to come:
    // drawing it at once costs the main thread a render and a frame, and the answer and its
    // message wait behind them (some 10 ms on a busy machine). A second click meanwhile is
    // refused above all the same.
    const slow = setTimeout(() => this.render(), SLOW_ANSWER_MS);
    let followed = false;
    let version = 0;
    try {
      const result = await sent;
      version = result ? result.last_version : 0;
      // A throw's or a move's own message brings the view after it (follow), as a rule a
      // moment after this answer: no fetch while the feed is open (the message of a move that
      // ends the game fetches it), and no drawing of the view before it either, which would
      // only offer the button just pressed again until the message comes.
      followed = (command.type === "roll" || command.type === "move") && this.feedOpen;
      return true;
    } catch (err) {
      this.showError(err.message);
      return false;
    } finally {
      clearTimeout(slow);
      this.sending = false;
      if (!followed) {
        await this.refetch();
        this.render();
      } else if (this.view && this.view.version >= version) {
        this.render(); // the message came first, drawn while this command was being sent
      } else {
        this.awaitFollow(version);
      }
    }
  }

  /** After a command whose events the feed brings: if the view has not reached `version` a
   * second later (the feed is slow or down), fetch it; draw the page either way. */
  awaitFollow(version) {
    clearTimeout(this.followTimer);
    this.followTimer = setTimeout(() => {
      if (this.stopped) return;
      if (!this.view || this.view.version < version) this.refetch();
      else this.render();
    }, 1000);
  }

  async post(channel, text) {
    try {
      await api.command(this.id, { type: "chat", channel, text });
      return true;
    } catch (err) {
      this.showError(err.message);
      return false;
    }
  }

  // -- the view --------------------------------------------------------------------------------

  apply(view) {
    if (this.view && view.version < this.view.version) return; // an older answer overtaken
    // The same view again (a command's own refetch and its events' refetch): drawing it again
    // would only replace the buttons under a pointer about to click one.
    const text = JSON.stringify(view);
    if (text === this.viewText) return;
    this.viewText = text;
    this.view = view;
    this.nameOf = namer(view, this.me);
    const game = view.game;
    // Steps made stay while the position and the dice are the same (a chat, a seat taken or a
    // cube answered elsewhere does not undo a half-made play).
    const boardKey = game ? [game.number, game.turn, (game.dice || []).join(), game.position_id].join("|") : "";
    if (boardKey !== this.turnKey) {
      this.turnKey = boardKey;
      this.made = [];
      this.selected = null;
      // The box's choices of cubes are for this turn's decision only: the next one starts
      // with every cube chosen again (a cube left out once is not left out for good).
      this.doubleChoice.clear();
      this.resignChoice.clear();
    }
    // The server's clock minus ours, as of this view (the window counts down by it).
    if (view.seed_window) this.clockOffset = view.seed_window.now - Date.now();
    if (view.now) this.clockOffset = view.now - Date.now();
    this.connected = new Set(view.connected || []);
    this.render();
    this.seedWindow();
  }

  /** Milliseconds of the server's time since the view was made (the clocks count from it). */
  elapsed() {
    return this.view && this.view.now ? Date.now() + (this.clockOffset || 0) - this.view.now : 0;
  }

  /** Whether `id` has a stream open to the table (this page's own socket counts at once). */
  isConnected(id) {
    return this.connected.has(id) || (id === this.me && this.feedOpen);
  }

  /** A player's presence mark and clock, beside their name. */
  nameMarks(id) {
    return [" ", presenceMark(id, this.isConnected(id), this.nameOf(id, { you: false })), " ", clockSpan(this.view, id, this.elapsed())];
  }

  /** Seconds left in the open seed window while it still waits for someone (0: none). */
  windowLeft() {
    return windowLeft(this);
  }

  /** The seed window: as soon as it waits for this player, a random seed of their own goes in
   * (the server committed to its seed first, so it cannot choose dice after seeing it); while
   * it is open the page counts it down and redraws when it runs out. */
  seedWindow() {
    const v = this.view;
    const w = v && v.seed_window;
    clearTimeout(this.windowTimer);
    if (!w) return;
    const key = `${v.id}/${w.game}`;
    if ((v.allowed || []).includes("waive_seed") && this.autoSeeded !== key && !this.sending) {
      this.autoSeeded = key;
      const bytes = new Uint8Array(16);
      crypto.getRandomValues(bytes);
      const seed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      this.mySeed = { game: w.game, seed };
      this.send({ type: "add_seed", seed });
    }
    if (this.windowLeft() > 0 || this.autoSeeded !== key) {
      this.windowTimer = setTimeout(() => {
        this.renderActions();
        this.renderFair();
        this.seedWindow();
      }, 1000);
    }
  }

  render() {
    const v = this.view;
    if (!v) return;
    this.social?.update(v);
    const active = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.testid : null;
    const kindName = KIND_NAMES[v.kind] || v.kind;
    // A night sums chouettes' and money games' points; a match's games score the match.
    this.nightLink.hidden = v.kind === "match";
    if (v.tournament) {
      const t = v.tournament;
      this.tournamentLink.href = `#/tournament/${encodeURIComponent(t.tournament_id)}`;
      this.tournamentLink.setAttribute("aria-label", `Tournament: round ${t.round}, board ${t.board}`);
      this.tournamentLink.title = `Round ${t.round}, board ${t.board}`;
      this.tournamentLink.hidden = false;
    }
    this.title.textContent = v.name ? `${v.name} \u2014 ${kindName}` : kindName;
    const options = describeOptions(v.kind, v.options);
    this.roleLine.textContent = `${ROLE_WORDS[v.role] || v.role} ${options[0].toUpperCase()}${options.slice(1)}.`;
    // Live regions are written only when their words change (a rewrite is read again).
    const status = this.passed ? `${this.passed} ${this.statusText()}` : this.statusText();
    if (this.status.textContent !== status) this.status.textContent = status;
    this.renderResult();
    this.renderBoard();
    this.renderMovePanel();
    this.renderActions();
    this.renderLeave();
    this.renderScore();
    this.renderLine();
    this.renderFair();
    this.chat.update(v);
    // A control that was focused and is drawn again keeps the focus (keyboard play).
    if (active && (!document.activeElement || document.activeElement === document.body)) {
      const again = this.main.querySelector(`[data-testid="${CSS.escape(active)}"]`);
      if (again) again.focus();
    }
  }

  /** The last game's end in words: the winner, how and the points (in a chouette, each
   * member's game against the box). */
  renderResult() {
    const d = this.lastResult;
    this.resultLine.hidden = !d;
    if (!d) return;
    const members = Array.isArray(d.members) ? d.members : [];
    const parts = members.length
      ? members.map((m) => settlementText(m, this.nameOf, { against: true }))
      : [settlementText({ ...d, points: d.points ?? d.result * d.cube }, this.nameOf)];
    const text = `Game ${d.game} is over: ${parts.join("; ")}.`;
    if (this.resultLine.textContent !== text) this.resultLine.textContent = text;
  }

  statusText() {
    const v = this.view;
    const w = v.seed_window;
    if (w && w.waiting.length) {
      const names = w.waiting.map((p) => this.nameOf(p));
      const who = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
      return `Game ${w.game}: waiting for ${who} to add a dice seed before the first throw.`;
    }
    if (w) return `Game ${w.game}: every seed is in.`;
    if (v.kind === "chouette" && !v.game && v.in_game) return "The first game has started: any player throws for the line.";
    if (v.game && v.game.status) return v.game.status;
    if (v.match_winner) return `${this.nameOf(v.match_winner)} won the match.`;
    if (v.kind === "chouette") {
      const n = (v.players || []).filter((p) => p.role !== "spectator").length;
      return n < 2
        ? "Waiting for players: a chouette needs at least two."
        : `${n} players. Any of them can start the game.`;
    }
    const seats = v.seats || [];
    if (seats.includes(null)) return "Waiting for a second player to sit down.";
    return "Waiting for the next game.";
  }

  // -- the side panels (server/static/table/panels.js) -------------------------------------------------

  renderScore() {
    renderScore(this);
  }

  renderLine() {
    renderLine(this);
  }

  renderFair() {
    renderFair(this);
  }
}

/** Gives the page the methods of each part (their prototypes' own, the constructor aside). */
function mixIn(target, ...parts) {
  for (const part of parts) {
    for (const name of Object.getOwnPropertyNames(part.prototype)) {
      if (name !== "constructor") Object.defineProperty(target.prototype, name, Object.getOwnPropertyDescriptor(part.prototype, name));
    }
  }
}

mixIn(TablePage, FeedGlue, BoardPlay, ActionPanel);

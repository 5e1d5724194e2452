// A table: the board from the viewer's side, the moves and the cube, the chouette's line and
// cubes, the score or the ledger, talk, and the live feed that keeps it all current.
//
// The page has no rules of its own: it draws `GET /tables/{id}`, offers the commands in
// `allowed` (and, for the box, the members in `targets`), and lets the mover build a play only
// from the server's `legal_plays`. On every event of the table stream it fetches the view again,
// except after a throw: the throw's message carries the legal plays (`m`), and the view follows it.

import { api, session } from "./api.js";
import { Board } from "./board.js";
import { Chat } from "./chat.js";
import { clockSpan, presenceMark, refreshClocks } from "./clocks.js";
import { h, replace } from "./dom.js";
import { pipCount } from "./geometry.js";
import { TableFeed } from "./live.js";
import { describeOptions } from "./lobby.js";
import * as moves from "./moves.js";
import { renderFair, renderLine, renderScore, windowLeft } from "./panels.js";
import { LEVELS, namer, placeText, settlementText, signed } from "./names.js";
import { tableSocial } from "./social.js";

const AUTO_KEY = "chouette.autoConfirm";
const KIND_NAMES = { money: "Money table", match: "Match", chouette: "Chouette" };
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
            h("a", { href: `#/replay/${this.id}`, "data-testid": "replay-link" }, "Replay and fairness"),
          ),
        ),
        (this.social = tableSocial(this.id)).root,
        this.status,
        this.resultLine,
        this.say,
        h(
          "div",
          { class: "play-area" },
          h("div", { class: "board-col" }, this.sideTop, boardBox, this.sideBottom, this.diceText, this.movePanel, this.actions),
          h("div", { class: "info-col" }, this.scorePanel, this.linePanel, this.chat.root, this.fairPanel),
        ),
      ),
    );
  }

  async start() {
    this.stopped = false;
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
    clearInterval(this.clockTimer);
    if (this.feed) this.feed.stop();
    this.notice(null);
  }

  connection(state) {
    this.feedOpen = state === "open";
    if (state === "lost") this.notice("Connection lost \u2014 reconnecting\u2026");
    else if (state === "open") {
      this.notice(null);
      // Whatever happened while away arrives as events; one fetch makes sure the view is fresh.
      this.refetch();
    }
  }

  event(msg) {
    if (msg.s === "chat") {
      this.chat.add(msg);
      return;
    }
    if (msg.t === "game_ended" && msg.d) {
      this.lastResult = msg.d;
      this.renderResult();
    }
    if (this.applyThrow(msg)) return;
    this.refetch();
  }

  /** A throw's message says what the table waits for now (`m`: who moves, the dice, the legal
   * plays, the clocks): the view follows it without fetching the table again. False when it
   * cannot (no `m`, the thrower cannot move, or this view is not the version just before). */
  applyThrow(msg) {
    const v = this.view;
    const m = msg.m;
    if (!m || !Array.isArray(m.plays) || !m.plays.length || !v || !v.game) return false;
    if (v.version !== msg.v - 1) return false;
    const game = {
      ...v.game,
      phase: "move",
      dice: m.dice,
      legal_plays: m.plays,
      on_roll: m.player,
      to_act: [m.player],
      status: m.status,
      position_id: m.position_id,
      turn: v.game.sides[0].players.includes(m.player) ? 0 : 1,
    };
    // After a throw the only decision is the mover's play: no throw, cube, resignation or
    // seed is due from anyone.
    const gone = new Set(["roll", "double", "resign", "take", "drop", "beaver", "accept", "decline", "add_seed", "waive_seed"]);
    const allowed = (v.allowed || []).filter((a) => !gone.has(a));
    if (m.player === this.me) allowed.push("move");
    this.apply({
      ...v,
      version: msg.v,
      chain_head: msg.h ?? v.chain_head,
      allowed: allowed.sort(),
      targets: {},
      game,
      seed_window: null,
      now: m.now,
      clocks: m.clocks,
    });
    return true;
  }

  /** Fetch the view again; calls during a fetch coalesce into one more fetch after it. */
  refetch() {
    if (this.fetching) {
      this.fetchAgain = true;
      return this.fetching;
    }
    this.fetching = (async () => {
      do {
        this.fetchAgain = false;
        try {
          const view = await api.table(this.id);
          if (!this.stopped) this.apply(view);
        } catch (err) {
          if (err.status !== 0) this.showError(err.message);
        }
      } while (this.fetchAgain && !this.stopped);
    })().finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }

  // -- commands --------------------------------------------------------------------------------

  async send(command) {
    if (this.sending) return false;
    this.sending = true;
    this.render();
    let thrown = false;
    try {
      await api.command(this.id, command);
      // A throw's own message brings the plays (applyThrow): no fetch while the feed is open.
      thrown = command.type === "roll" && this.feedOpen;
      return true;
    } catch (err) {
      this.showError(err.message);
      return false;
    } finally {
      this.sending = false;
      if (!thrown) await this.refetch();
      this.render();
    }
  }

  async seatBot() {
    try {
      await api.seatBot(this.id);
    } catch (err) {
      this.showError(err.message);
    }
    await this.refetch();
    this.render();
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

  canMove() {
    const v = this.view;
    const game = v && v.game;
    // With no legal move the server passes the turn by itself: nothing to build or send.
    return Boolean(
      game &&
        (v.allowed || []).includes("move") &&
        Array.isArray(game.legal_plays) &&
        game.legal_plays.length &&
        !moves.cannotMove(game.legal_plays),
    );
  }

  plays() {
    return this.view.game.legal_plays;
  }

  startBoard() {
    const [mine, theirs] = this.view.game.sides;
    return { mover: mine.board, opponent: theirs.board };
  }

  render() {
    const v = this.view;
    if (!v) return;
    this.social?.update(v);
    const active = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.testid : null;
    const kindName = KIND_NAMES[v.kind] || v.kind;
    this.title.textContent = v.name ? `${v.name} \u2014 ${kindName}` : kindName;
    const options = describeOptions(v.kind, v.options);
    this.roleLine.textContent = `${ROLE_WORDS[v.role] || v.role} ${options[0].toUpperCase()}${options.slice(1)}.`;
    // Live regions are written only when their words change (a rewrite is read again).
    const status = this.statusText();
    if (this.status.textContent !== status) this.status.textContent = status;
    this.renderResult();
    this.renderBoard();
    this.renderMovePanel();
    this.renderActions();
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

  // -- the board and the move --------------------------------------------------------------------

  renderBoard() {
    const v = this.view;
    const game = v.game;
    if (!game || !Array.isArray(game.sides)) {
      const empty = new Array(26).fill(0);
      this.board.draw({ viewer: empty, opponent: empty, sources: new Set(), destinations: new Map(), selected: null, interactive: false });
      replace(this.sideTop, "");
      replace(this.sideBottom, "");
      this.diceText.textContent = "";
      return;
    }
    const [mine, theirs] = game.sides;
    const moving = this.canMove() && !this.sending;
    let viewer = mine.board;
    let opponent = theirs.board;
    let sources = new Set();
    let destinations = new Map();
    if (moving) {
      const start = this.startBoard();
      try {
        const now = moves.applySteps(start, this.made);
        viewer = now.mover;
        opponent = now.opponent;
        sources = new Set(moves.sources(this.plays(), start, this.made));
        if (this.selected !== null) {
          destinations = new Map(moves.destinations(this.plays(), start, this.made, this.selected).map((d) => [d.to, d]));
        }
      } catch (err) {
        // Steps that no longer fit the server's plays: start the turn over.
        this.made = [];
        this.selected = null;
      }
    }
    const diceSide = game.turn === 1 ? "opponent" : "viewer";
    const used = this.usedDice(game.dice);
    this.board.draw({
      viewer,
      opponent,
      names: { viewer: mine.label, opponent: theirs.label },
      dice: game.dice ? { values: game.dice, side: diceSide, used } : null,
      cube: this.boardCube(),
      interactive: moving,
      sources,
      destinations,
      selected: this.selected,
    });
    this.board.svg.classList.toggle("interactive", moving);
    this.board.svg.setAttribute(
      "aria-label",
      `Backgammon board, from ${mine.label}'s side${moving ? ": your move — choose a checker with Enter, then where it goes" : ""}`,
    );
    // While a play is being built the pip counts follow the board shown.
    const partial = moving && this.made.length > 0;
    const pips = [partial ? pipCount(viewer) : mine.pips, partial ? pipCount(opponent) : theirs.pips];
    const sideInfo = (side, i) => {
      const onTurn = game.turn === i;
      const names = (side.players || []).map((p) => this.nameOf(p, { you: false })).join(", ");
      const yours = (side.players || []).includes(this.me);
      return [
        h("span", { class: "swatch", "aria-hidden": "true" }, i === 0 ? "\u25CB" : "\u25C9"),
        h("strong", {}, side.label),
        names && names !== side.label ? h("span", { class: "muted" }, ` (${names})`) : null,
        yours ? h("span", {}, " \u2014 you") : null,
        h("span", { "data-testid": `pips-${i}` }, ` \u00B7 ${pips[i]} pips`),
        h("span", {}, ` \u00B7 ${side.off} off`),
        onTurn ? h("span", { class: "on-turn", "data-testid": `turn-${i}` }, " \u00B7 \u25B6 on turn") : null,
      ];
    };
    replace(this.sideTop, sideInfo(theirs, 1));
    replace(this.sideBottom, sideInfo(mine, 0));
    this.diceText.textContent = game.dice
      ? `Dice: ${game.dice.join(" and ")}${game.turn === null || game.turn === undefined ? "" : ` (${game.sides[game.turn].label})`}`
      : "No dice thrown.";
    this.diceText.dataset.dice = game.dice ? game.dice.join(",") : "";
  }

  /** Which dice the steps made have used (shown struck through): a doubles' four steps use
   * the two dice drawn in turn; otherwise each step uses its own die, or for a bear-off the
   * smallest die larger than the distance. */
  usedDice(dice) {
    if (!dice || !this.made.length) return null;
    if (dice[0] === dice[1]) return dice.map((_, i) => this.made.length >= 2 * (i + 1));
    const used = dice.map(() => false);
    for (const [from, to] of this.made) {
      const d = from - to;
      let i = dice.findIndex((x, k) => !used[k] && x === d);
      if (i < 0) i = dice.findIndex((x, k) => !used[k] && x > d);
      if (i >= 0) used[i] = true;
    }
    return used;
  }

  /** The cube drawn on the board: a two-player table's, a single-cube chouette's, or the
   * viewer's own in a chouette. */
  boardCube() {
    const game = this.view.game;
    const cubes = game.cubes || [];
    let cube = null;
    if (cubes.length === 1) cube = cubes[0];
    else cube = cubes.find((c) => c.member === this.me) || null;
    if (!cube) return null;
    const mine = game.sides[0].players || [];
    const owner = cube.owner === null || cube.owner === undefined ? null : mine.includes(cube.owner) ? "viewer" : "opponent";
    // An offered cube shows the value it is offered at.
    return { value: cube.pending ? cube.pending.value : cube.value, owner, offered: Boolean(cube.pending) };
  }

  tell(text) {
    this.say.textContent = "";
    // A fresh node each time, so the same words are read again.
    requestAnimationFrame(() => {
      this.say.textContent = text;
    });
  }

  activate(place) {
    if (!this.canMove() || this.sending) {
      if (place !== null) this.tell("It is not your move.");
      return;
    }
    const start = this.startBoard();
    const sources = moves.sources(this.plays(), start, this.made);
    if (place === null) {
      this.selected = null;
      this.tell("Selection cleared.");
      this.render();
      return;
    }
    if (this.selected === null || this.selected === place) {
      if (this.selected === place) {
        this.selected = null;
        this.tell(`${placeText(place)} deselected.`);
      } else if (sources.includes(place)) {
        this.selected = place;
        const to = moves.destinations(this.plays(), start, this.made, place).map((d) => placeText(d.to));
        this.tell(`From ${placeText(place)}: you can move to ${to.join(", ")}.`);
      } else {
        this.tell(`No checker of yours can move from ${placeText(place)}. You can move from ${sources.map(placeText).join(", ")}.`);
      }
      this.render();
      return;
    }
    const steps = moves.stepsTo(this.plays(), start, this.made, this.selected, place);
    if (steps) {
      this.step(steps);
    } else if (sources.includes(place)) {
      this.selected = place;
      const to = moves.destinations(this.plays(), start, this.made, place).map((d) => placeText(d.to));
      this.tell(`From ${placeText(place)}: you can move to ${to.join(", ")}.`);
      this.render();
    } else {
      this.tell(`That checker cannot go to ${placeText(place)}.`);
    }
  }

  drag(from, to) {
    if (!this.canMove() || this.sending) return;
    const steps = moves.stepsTo(this.plays(), this.startBoard(), this.made, from, to);
    if (steps) this.step(steps);
    else this.tell(`That checker cannot go to ${placeText(to)}.`);
  }

  step(steps) {
    this.made = [...this.made, ...steps];
    this.selected = null;
    const done = moves.completed(this.plays(), this.made);
    const text = steps.map(([a, b]) => `${placeText(a)}/${placeText(b)}`).join(" ");
    if (done !== null) {
      if (this.autoConfirm) {
        this.tell(`Moved ${text}. Playing ${done}.`);
        this.render();
        this.play(done);
        return;
      }
      this.tell(`Moved ${text}. The play ${done} is complete: confirm it, or undo.`);
    } else {
      this.tell(`Moved ${text}.`);
    }
    this.render();
  }

  async play(notation) {
    const ok = await this.send({ type: "move", notation });
    if (ok) {
      this.made = [];
      this.selected = null;
      this.moveInput.value = "";
    }
  }

  typed() {
    const text = this.moveInput.value.trim();
    if (!text) return;
    if (!this.canMove()) {
      this.showError("It is not your move.");
      return;
    }
    const match = moves.matchNotation(this.plays(), text);
    // One listed play: send the server's own spelling; otherwise send the text as typed and
    // let the server say what is wrong with it.
    this.play(match.play !== null ? match.play : text);
  }

  renderMovePanel() {
    if (!this.canMove()) {
      // (A turn with no legal move passes at once on the server: there is nothing to show.)
      replace(this.movePanel);
      this.movePanel.hidden = true;
      return;
    }
    this.movePanel.hidden = false;
    const plays = this.plays();
    const done = moves.completed(plays, this.made);
    const left = moves.remainingPlays(plays, this.made);
    const only = done === null && left.length === 1 ? left[0] : null;
    const madeText = this.made.map(([a, b]) => `${placeText(a)}/${placeText(b)}`).join(" ");
    replace(
      this.movePanel,
      h("h2", { class: "visually-hidden" }, "Your move"),
      h(
        "p",
        { "data-testid": "move-made" },
        this.made.length ? `Moved so far: ${madeText}` : `Your move: ${plays.length} legal play${plays.length === 1 ? "" : "s"}.`,
      ),
      h(
        "div",
        { class: "buttons" },
        done !== null
          ? h("button", { type: "button", class: "primary", "data-testid": "cmd-confirm", disabled: this.sending, onclick: () => this.play(done) }, `Confirm ${done}`)
          : null,
        only !== null && only !== ""
          ? h("button", { type: "button", "data-testid": "cmd-play-only", disabled: this.sending, onclick: () => this.play(only) }, `Play ${only}`)
          : null,
        this.made.length
          ? h(
              "button",
              {
                type: "button",
                class: "secondary",
                "data-testid": "cmd-undo",
                disabled: this.sending,
                onclick: () => {
                  this.made = moves.undo(this.made);
                  this.selected = null;
                  this.tell("Undone.");
                  this.render();
                },
              },
              "Undo",
            )
          : null,
      ),
      this.moveForm,
      h("div", { class: "field check" }, this.autoBox, h("label", { for: "auto-confirm" }, "Send a play as soon as it is complete")),
    );
  }

  // -- the commands offered --------------------------------------------------------------------

  button(type, label, command, extra = {}) {
    return h(
      "button",
      {
        type: "button",
        "data-testid": extra.testid || `cmd-${type}`,
        class: extra.class || "",
        disabled: this.sending || Boolean(extra.disabled),
        onclick: () => this.send(command),
        "aria-label": extra.ariaLabel,
        title: extra.title,
      },
      label,
    );
  }

  /** The members whose cubes the box may name for an action (its choices beside each name);
   * null for anyone else, whose `targets` can only be their own cube: they act with the plain
   * buttons. */
  targets(action) {
    if (this.view.kind !== "chouette" || !this.me || this.view.box !== this.me) return null;
    const t = (this.view.targets || {})[action];
    return Array.isArray(t) && t.length ? t : null;
  }

  renderActions() {
    const v = this.view;
    const allowed = new Set(v.allowed || []);
    const game = v.game;
    const out = [];
    if (allowed.has("join")) out.push(this.button("join", v.kind === "chouette" ? "Join the chouette" : "Sit down", { type: "join" }, { class: "primary" }));
    // Between money games "Throw for the next game" starts it too: one button, not two.
    const throwsForNext = allowed.has("roll") && !v.in_game;
    if (allowed.has("start_game") && !throwsForNext) out.push(this.button("start_game", "Start a game", { type: "start_game" }, { class: "primary" }));
    // The seed window holds the throw back (seed_window.held) until its deadline: offered
    // disabled, counting down, and enabled when the time runs out (no event says so).
    const held = new Set((v.seed_window && v.seed_window.held) || []);
    if (allowed.has("roll") || held.has("roll")) {
      const opening = game && game.phase === "opening";
      const label = !v.in_game ? "Throw for the next game" : !game && v.kind === "chouette" ? "Throw for the line" : opening ? "Throw the opening dice" : "Roll";
      const waits = held.has("roll") && this.windowLeft() > 0;
      out.push(this.button("roll", label, { type: "roll" }, { class: "primary", disabled: waits, title: waits ? "Waiting for the players' dice seeds" : undefined }));
    }
    if (allowed.has("double")) {
      const targets = this.targets("double");
      if (targets) {
        const chosen = targets.filter((m) => this.doubleChoice.get(m) !== false);
        out.push(
          h(
            "button",
            {
              type: "button",
              "data-testid": "cmd-double",
              disabled: this.sending || chosen.length === 0,
              onclick: () => this.send({ type: "double", cubes: targets.filter((m) => this.doubleChoice.get(m) !== false) }),
            },
            `Double ${chosen.length === targets.length ? "every cube" : `${chosen.length} cube${chosen.length === 1 ? "" : "s"}`} (choose beside each name)`,
          ),
        );
      } else {
        out.push(this.button("double", v.kind === "chouette" ? "Double your cube" : "Double", { type: "double" }));
      }
    }
    for (const [type, label] of [
      ["take", "Take"],
      ["beaver", "Beaver"],
      ["drop", "Drop"],
      ["accept", "Accept the resignation"],
      ["decline", "Decline the resignation"],
    ]) {
      // The box answers member by member, beside each name; anyone else answers here.
      if (allowed.has(type) && !this.targets(type)) out.push(this.button(type, label, { type }));
    }
    if (allowed.has("resign")) {
      const targets = this.targets("resign");
      const to = targets ? targets.filter((m) => this.resignChoice.get(m) !== false) : null;
      const menu = h(
        "details",
        {
          class: "resign",
          "data-testid": "resign-menu",
          open: this.resignOpen,
          ontoggle: (ev) => {
            this.resignOpen = ev.target.open;
          },
        },
        h("summary", { "data-testid": "cmd-resign" }, "Resign\u2026"),
        targets ? h("p", { class: "muted" }, "To the members chosen beside each name.") : null,
        [1, 2, 3].map((level) =>
          h(
            "button",
            {
              type: "button",
              "data-testid": `cmd-resign-${level}`,
              disabled: this.sending || (to !== null && to.length === 0),
              onclick: () => this.send(to ? { type: "resign", level, to } : { type: "resign", level }),
            },
            `Resign ${LEVELS[level]}`,
          ),
        ),
      );
      out.push(menu);
    }
    if (allowed.has("leave")) out.push(this.button("leave", "Leave the table", { type: "leave" }, { class: "secondary" }));
    // The table's creator may seat a bot in a free seat (docs/bots.md).
    const seated = (v.players || []).filter((p) => p.role !== "spectator").length;
    if (this.me && this.me === v.created_by && seated < (v.options.max_players || (v.kind === "chouette" ? 8 : 2))) {
      out.push(h("button", { type: "button", "data-testid": "seat-bot", class: "secondary", disabled: this.sending, onclick: () => this.seatBot() }, "Seat a bot"));
    }
    const perMember = ["take", "drop", "beaver", "accept", "decline"].some((t) => allowed.has(t) && this.targets(t));
    if (perMember) {
      out.push(h("p", { class: "hint", "data-testid": "answer-hint" }, "Answer each member beside their name in the line."));
    }
    replace(this.actions, out.length ? out : h("p", { class: "muted" }, this.waitingText()));
  }

  waitingText() {
    const v = this.view;
    const game = v.game;
    if (!game) return "Nothing to do now.";
    const waiting = (game.to_act || []).map((id) => this.nameOf(id));
    return waiting.length ? `Waiting for ${waiting.join(", ")}.` : "Nothing to do now.";
  }

  // -- the score, the ledger, the line and the cubes ---------------------------------------------

  renderScore() {
    renderScore(this);
  }

  renderLine() {
    renderLine(this);
  }

  choice(action, id, map, label) {
    const box = h("input", {
      type: "checkbox",
      id: `${action}-target-${id}`,
      "data-testid": `${action}-target-${id}`,
      checked: map.get(id) !== false,
      disabled: this.sending,
      onchange: (ev) => {
        map.set(id, ev.target.checked);
        this.renderActions();
      },
    });
    return h("span", { class: "field check" }, box, h("label", { for: `${action}-target-${id}` }, label));
  }

  renderFair() {
    renderFair(this);
  }

}

// The table page's board and the move being built (server/static/table/table.js): the board from the
// viewer's side, the steps of a play made with the pointer, the keyboard or typed, and the move
// panel. Methods of the page, mixed into it (they share its fields: `view`, `made`, `selected`,
// `sending`). A play is built only from the server's plays, its tree of steps `play_tree` (or its
// list `legal_plays`; server/static/board/moves.js), and sent as the moves of one of its routes.

import { h, replace } from "../lib/dom.js";
import { cubesFromView, pipCount } from "../board/geometry.js";
import * as moves from "../board/moves.js";
import { placeText } from "../lib/names.js";

export class BoardPlay {
  canMove() {
    const v = this.view;
    const game = v && v.game;
    // With no legal move the server passes the turn by itself: nothing to build or send.
    return Boolean(game && (v.allowed || []).includes("move") && Array.isArray(this.plays()) && !moves.cannotMove(this.plays()));
  }

  plays() {
    const game = this.view.game;
    return Array.isArray(game.play_tree) ? game.play_tree : game.legal_plays;
  }

  startBoard() {
    const [mine, theirs] = this.view.game.sides;
    return { mover: mine.board, opponent: theirs.board };
  }

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
    const building = this.canMove();
    const moving = building && !this.sending;
    let viewer = mine.board;
    let opponent = theirs.board;
    let sources = new Set();
    let destinations = new Map();
    if (building) {
      const start = this.startBoard();
      try {
        // While the play is on its way the board keeps showing it (rather than going back to
        // the turn's start until the answer: the checkers would slide back and forth).
        const now = moves.applySteps(start, this.made);
        viewer = now.mover;
        opponent = now.opponent;
        if (moving) sources = new Set(moves.sources(this.plays(), start, this.made));
        if (moving && this.selected !== null) {
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
      cubes: this.boardCubes(),
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
    const partial = building && this.made.length > 0;
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

  /** The cubes drawn on the board (geometry.cubesFromView): a two-player table's, the
   * viewer's own in a chouette, or every member's for the box, each named. */
  boardCubes() {
    return cubesFromView(this.view.game, this.me).map((c) => ({ ...c, name: c.member ? this.nameOf(c.member, { you: false }) : "" }));
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
    // A listed play is sent as its moves (the server need not read notation); typed text that
    // names none is sent as typed, for the server to say what is wrong with it.
    const steps = moves.playMoves(this.plays(), notation);
    const ok = await this.send(steps === null ? { type: "move", notation } : { type: "move", moves: steps });
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
        this.made.length ? `Moved so far: ${madeText}` : `Your move: ${moves.playCount(plays)} legal play${moves.playCount(plays) === 1 ? "" : "s"}.`,
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
}

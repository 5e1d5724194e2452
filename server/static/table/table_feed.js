// The table page's live feed (server/static/table/table.js): what it does with each message of the
// table stream. Methods of the page, mixed into it (this file holds one concern of the page and
// shares its fields: `view`, `me`, `feed`, `fetching`).
//
// A throw's message (`m`) says what every viewer's view says after it (their `allowed`, their
// `targets` and whose turn it is, server/views/throw.py's ThrowView), and so does a move's when
// the game goes on (the game after it, server/views/move.py's MoveView), so the page follows
// throws and plays without fetching the table and without rules of its own; every other event
// fetches it.

import { api } from "../lib/api.js";

/** The view `view` (as `me`, an account id or null when not signed in) becomes after the throw
 * of the stream message `msg`, from what its `m` says: who moves, the dice, the legal plays (a
 * tree of steps, `play_tree`), the status and the clocks, and what this viewer's view says after it (`viewers[me]`, or
 * `spectator` / `anonymous` for someone not at the table: `allowed`, `targets`, `turn`,
 * `leave_cost`). Null when it cannot: no `m`, the thrower cannot move (the turn has passed:
 * fetch the view), or `view` is not the version just before the throw. */
export function followThrow(view, msg, me) {
  const m = msg.m;
  const tree = m && m.play_tree;
  // No step at all ([[]]): the thrower cannot move and the turn has passed.
  if (!Array.isArray(tree) || !Array.isArray(tree[0]) || !tree[0].length || !view || !view.game) return null;
  if (view.version !== msg.v - 1) return null;
  const after = me === null ? m.anonymous : (m.viewers && m.viewers[me]) || m.spectator;
  if (!after) return null; // a server older than the page's: fetch the view
  return {
    ...view,
    version: msg.v,
    chain_head: msg.h ?? view.chain_head,
    allowed: after.allowed,
    targets: after.targets,
    // What leaving costs now: an opening throw starts the game, and the forfeit with it.
    leave_cost: after.leave_cost === undefined ? view.leave_cost : after.leave_cost,
    game: {
      ...view.game,
      phase: "move",
      dice: m.dice,
      play_tree: tree,
      legal_plays: undefined, // the view's list was of the turn before: the tree replaces it
      on_roll: m.player,
      to_act: [m.player],
      status: m.status,
      position_id: m.position_id,
      turn: after.turn,
    },
    seed_window: null, // a game's first throw closes its seed window (docs/dice.md)
    now: m.now,
    clocks: m.clocks,
  };
}

/** The view `view` (as `me`) becomes after the move of the stream message `msg`, from what its
 * `m` says: the game after it as a spectator sees it (`game`, its `sides` the other way round
 * for a viewer whose `flip` is set: the seat-1 player, the box), the clocks, a chouette's
 * `text`, and what this viewer's view says (`viewers[me]`, or `spectator` / `anonymous`:
 * `allowed`, `targets`, `turn`, `leave_cost`). Null when it cannot: no `m` (the game did not go
 * on: fetch the view), or `view` is not the version just before the move. */
export function followMove(view, msg, me) {
  const m = msg.m;
  if (!m || !m.game || !view || view.version !== msg.v - 1) return null;
  const after = me === null ? m.anonymous : (m.viewers && m.viewers[me]) || m.spectator;
  if (!after) return null;
  const sides = after.flip ? [m.game.sides[1], m.game.sides[0]] : m.game.sides;
  const next = {
    ...view,
    version: msg.v,
    chain_head: msg.h ?? view.chain_head,
    allowed: after.allowed,
    targets: after.targets,
    leave_cost: after.leave_cost,
    game: { ...m.game, sides, turn: after.turn },
    now: m.now,
    clocks: m.clocks,
  };
  if (m.text !== undefined) next.text = m.text;
  return next;
}

/** What a table message says of a throw that could not be played (`m.passed`: the turn has
 * passed at once, and the view no longer shows the dice): its words ("Bob cannot move 6-6."),
 * shown until the next event; null for any other message. */
export function passedThrow(msg) {
  return msg && msg.t === "dice_rolled" && msg.m && msg.m.passed ? msg.m.status : null;
}

export class FeedGlue {
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
    // A throw that could not be played is said until the next event of the table.
    this.passed = passedThrow(msg);
    if (msg.t === "game_ended" && msg.d) {
      this.lastResult = msg.d;
      this.renderResult();
    }
    if (this.follow(msg)) return;
    this.refetch();
  }

  /** A throw's or a move's message says what the table waits for now (`m`): the view follows
   * it without fetching the table again. False when it cannot (see followThrow, followMove). */
  follow(msg) {
    const next = msg.t === "checkers_moved" ? followMove : followThrow;
    const view = next(this.view, msg, this.me);
    if (view === null) return false;
    this.apply(view);
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
}

// The table page's action panel (server/static/table/table.js): the commands the view's `allowed`
// offers, the box's choices of members (`targets`) and the seat-a-bot button (`may_seat_bot`).
// Methods of the page, mixed into it (they share its fields: `view`, `me`, `sending`).

import { api } from "../lib/api.js";
import { h, replace } from "../lib/dom.js";
import { LEVELS, signed } from "../lib/names.js";

/** The answers to a double or a resignation, as the view's `allowed` names them. */
const ANSWERS = [
  ["take", "Take"],
  ["beaver", "Beaver"],
  ["drop", "Drop"],
  ["accept", "Accept"],
  ["decline", "Decline"],
];

const RESIGN_WORDS = { 1: "Single game", 2: "Gammon", 3: "Backgammon" };

export class ActionPanel {
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

  async seatBot() {
    try {
      await api.seatBot(this.id);
    } catch (err) {
      this.showError(err.message);
    }
    await this.refetch();
    this.render();
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
        // The box names the cubes it doubles: the button, then a box for each member's cube
        // (no button while none is ticked: there would be nothing to send).
        const name = (m) => this.nameOf(m, { you: false });
        const chosen = targets.filter((m) => this.doubleChoice.get(m) !== false);
        const label =
          chosen.length === 1 ? `Double ${name(chosen[0])}'s cube` : chosen.length === targets.length ? "Double every cube" : `Double ${chosen.length} cubes`;
        out.push(
          chosen.length
            ? this.button("double", label, { type: "double", cubes: chosen })
            : h("p", { class: "muted", "data-testid": "double-none" }, "Tick a cube to double it:"),
          h(
            "div",
            { class: "choices", role: "group", "aria-label": "The cubes to double", "data-testid": "double-choices" },
            targets.map((m) => this.choice("double", m, this.doubleChoice, `Double ${name(m)}'s cube`, name(m))),
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
        targets
          ? h(
              "div",
              { class: "choices", role: "group", "aria-label": "The members to resign to" },
              targets.map((m) => this.choice("resign", m, this.resignChoice, `Resign to ${this.nameOf(m, { you: false })}`, this.nameOf(m, { you: false }))),
            )
          : null,
        [1, 2, 3].map((level) =>
          h(
            "button",
            {
              type: "button",
              "data-testid": `cmd-resign-${level}`,
              disabled: this.sending || (to !== null && to.length === 0),
              onclick: () => this.send(to ? { type: "resign", level, to } : { type: "resign", level }),
              // Short words under "Resign…" (the menu fits a phone's width); the whole name read.
              "aria-label": `Resign ${LEVELS[level]}`,
            },
            RESIGN_WORDS[level],
          ),
        ),
      );
      out.push(menu);
    }
    // Leaving is offered apart from these, in the page's header (renderLeave).
    // The table's creator may seat a bot in a free seat, as the view says (docs/bots.md).
    // (Beside the panels, not among the game's decisions: seatSlot.)
    replace(
      this.seatSlot,
      v.may_seat_bot
        ? h("button", { type: "button", "data-testid": "seat-bot", class: "secondary", disabled: this.sending, onclick: () => this.seatBot() }, "Seat a bot")
        : null,
    );
    const answers = this.memberAnswers(allowed);
    if (answers) out.push(answers);
    replace(this.actions, out.length ? out : h("p", { class: "muted" }, this.waitingText()));
  }

  /** The box's answers, member by member: a row for each member whose double or resignation
   * it answers, with that member's offer and the answers the view allows on that cube. */
  memberAnswers(allowed) {
    const kinds = ANSWERS.filter(([type]) => allowed.has(type) && this.targets(type));
    if (!kinds.length) return null;
    const v = this.view;
    const due = new Set(kinds.flatMap(([type]) => this.targets(type)));
    const order = [...(v.line || []), ...due].filter((id, i, all) => due.has(id) && all.indexOf(id) === i);
    const cubes = new Map(((v.game && v.game.cubes) || []).map((c) => [c.member, c]));
    const rows = order.map((id) => {
      const name = this.nameOf(id, { you: false });
      const cube = cubes.get(id) || {};
      const p = cube.pending;
      const r = cube.resignation;
      const what = p ? `${p.beavered ? "beavered" : "doubled"} to ${p.value}` : r ? `offers to resign ${LEVELS[r.level] || r.level}` : "";
      return h(
        "li",
        { class: "answer", "data-testid": `answer-${id}` },
        h("span", { class: "who" }, h("strong", {}, name), what ? `: ${what}` : ""),
        h(
          "span",
          { class: "buttons" },
          kinds
            .filter(([type]) => this.targets(type).includes(id))
            .map(([type, label]) => this.button(type, label, { type, cube: id }, { testid: `cmd-${type}-${id}`, ariaLabel: `${label} ${name}'s cube` })),
        ),
      );
    });
    return h(
      "div",
      { class: "answers" },
      h("p", { class: "hint", "data-testid": "answer-hint", id: "answer-hint" }, "Answer each member:"),
      h("ul", { class: "answer-list", "aria-labelledby": "answer-hint" }, rows),
    );
  }

  waitingText() {
    const v = this.view;
    const game = v.game;
    if (!game) return "Nothing to do now.";
    const waiting = (game.to_act || []).map((id) => this.nameOf(id));
    return waiting.length ? `Waiting for ${waiting.join(", ")}.` : "Nothing to do now.";
  }


  /** A box for one member's cube in the box's choice (`map`: member -> ticked); `label` is its
   * accessible name, `shown` the shorter words beside it (the member's name). */
  choice(action, id, map, label, shown = label) {
    const box = h("input", {
      type: "checkbox",
      id: `${action}-target-${id}`,
      "data-testid": `${action}-target-${id}`,
      "aria-label": shown === label ? undefined : label,
      checked: map.get(id) !== false,
      disabled: this.sending,
      onchange: (ev) => {
        map.set(id, ev.target.checked);
        this.renderActions();
        // The panel is drawn again: the box just ticked keeps the focus.
        this.actions.querySelector(`[data-testid="${action}-target-${CSS.escape(id)}"]`)?.focus();
      },
    });
    return h("span", { class: "field check" }, box, h("label", { for: `${action}-target-${id}` }, shown));
  }

  /** The Leave button, in the header apart from the game's actions (`leaveBox`): between games
   * it leaves at once; in mid-game it asks first, saying what leaving costs as the view states
   * it (`leave_cost`: the server's own forfeit), and only "Leave and forfeit" sends it. An open
   * question follows the view: its words change with the cost, and it closes when leaving
   * costs nothing any more. */
  renderLeave() {
    const v = this.view;
    if (!this.leaveDialog) this.buildLeaveDialog();
    const offered = (v.allowed || []).includes("leave");
    const button = h(
      "button",
      { type: "button", class: "secondary leave", "data-testid": "cmd-leave", disabled: this.sending, onclick: () => this.leave() },
      "Leave the table",
    );
    replace(this.leaveSlot, offered ? button : null);
    const cost = offered ? v.leave_cost : null;
    if (!this.leaveDialog.open) return;
    if (!cost) this.leaveDialog.close();
    else this.showLeaveCost(cost);
  }

  /** Leave now, or ask first when leaving forfeits. */
  leave() {
    const cost = this.view && this.view.leave_cost;
    if (!cost) {
      // Sent as free: refused (nothing done) if the game has started meanwhile.
      this.send({ type: "leave", at_most: 0 });
      return;
    }
    this.showLeaveCost(cost);
    if (!this.leaveDialog.open) this.leaveDialog.showModal();
    this.leaveCancel.focus();
  }

  showLeaveCost(cost) {
    this.leaveText.textContent = cost.text;
    const points = `${signed(cost.points)} point${Math.abs(cost.points) === 1 ? "" : "s"}`;
    this.leavePoints.dataset.points = String(cost.points);
    this.leavePoints.textContent = cost.match ? `Change to your ledger: ${points}, and you lose the match.` : `Change to your ledger: ${points}.`;
  }

  buildLeaveDialog() {
    this.leaveText = h("p", { id: "leave-text", "data-testid": "leave-text" });
    this.leavePoints = h("p", { class: "leave-points", "data-testid": "leave-points" });
    this.leaveCancel = h("button", { type: "button", "data-testid": "leave-cancel", onclick: () => this.leaveDialog.close() }, "Cancel");
    const confirm = h(
      "button",
      {
        type: "button",
        class: "danger",
        "data-testid": "leave-confirm",
        onclick: () => {
          this.leaveDialog.close();
          // At most the cost the dialog showed: refused, nothing done, if it has grown since.
          this.send({ type: "leave", at_most: -Number(this.leavePoints.dataset.points) });
        },
      },
      "Leave and forfeit",
    );
    // A modal dialog: the page behind it is inert, and Escape closes it (the native "cancel").
    this.leaveDialog = h(
      "dialog",
      { class: "leave-dialog", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "leave-title", "aria-describedby": "leave-text", "data-testid": "leave-dialog" },
      h("h2", { id: "leave-title" }, "Leave and forfeit?"),
      this.leaveText,
      this.leavePoints,
      h("div", { class: "dialog-buttons" }, this.leaveCancel, confirm),
    );
    this.leaveSlot = h("span", { class: "leave-slot" });
    replace(this.leaveBox, this.leaveSlot, this.leaveDialog);
  }
}

// Table talk: the table channel for everyone and the team's consultation channel, which the
// page shows only to those who may read it and lets post only those who may post on it now.

import { h } from "../lib/dom.js";

export class Chat {
  /** `send(channel, text)` posts; `nameOf(id)` names a player. */
  constructor({ send, nameOf }) {
    this.send = send;
    this.nameOf = nameOf;
    this.seen = new Set();
    this.panes = {};
    this.forms = {};
    this.root = h("section", { class: "chat", "aria-labelledby": "chat-title" }, h("h2", { id: "chat-title" }, "Talk"));
    for (const [channel, title] of [
      ["table", "Table chat"],
      ["team", "Team (the box cannot read this)"],
    ]) {
      const log = h("ol", {
        class: "chat-log",
        role: "log",
        "aria-live": "polite",
        "aria-label": title,
        "data-testid": `chat-${channel}`,
        tabindex: 0,
      });
      const input = h("input", {
        id: `chat-input-${channel}`,
        "data-testid": `chat-input-${channel}`,
        maxlength: 2000,
        autocomplete: "off",
      });
      const form = h(
        "form",
        {
          class: "chat-form",
          onsubmit: async (ev) => {
            ev.preventDefault();
            const text = input.value.trim();
            if (!text) return;
            if (await this.send(channel, text)) input.value = "";
          },
        },
        h("label", { for: `chat-input-${channel}`, class: "visually-hidden" }, `Message to the ${channel === "team" ? "team" : "table"}`),
        input,
        h("button", { type: "submit", "data-testid": `chat-send-${channel}` }, "Send"),
      );
      const pane = h("div", { class: `chat-pane ${channel}`, "data-testid": `chat-pane-${channel}` }, h("h3", {}, title), log, form);
      this.panes[channel] = { pane, log };
      this.forms[channel] = form;
      this.root.append(pane);
    }
  }

  /** Show or hide the panes and forms as the table view allows. */
  update(view) {
    const channels = view.channels || [];
    this.panes.team.pane.hidden = !view.reads_team;
    this.forms.table.hidden = !channels.includes("table");
    this.forms.team.hidden = !channels.includes("team");
  }

  /** A chat stream event (`{v, s: "chat", t, d}`); an unreadable one has no `t`. */
  add(msg) {
    if (!msg.t || msg.t !== "chat_posted" || !msg.d || this.seen.has(msg.v)) return;
    this.seen.add(msg.v);
    const d = msg.d;
    const channel = d.channel === "team" ? "team" : "table";
    const log = this.panes[channel].log;
    log.append(
      h(
        "li",
        { "data-v": msg.v, "data-player": d.player },
        h("span", { class: "who" }, `${this.nameOf(d.player)}: `),
        h("span", { class: "text" }, d.text),
      ),
    );
    log.scrollTop = log.scrollHeight;
  }
}

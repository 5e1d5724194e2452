// The table's keyboard shortcuts (server/static/table/table.js) and the panel that lists them, which
// `?` or the "?" button opens.
//
// A shortcut presses the page's own button for its command, when the page offers it and it is
// enabled: it knows no rules of its own (what the view allows is what the buttons offer), and
// it does exactly what a click would. A key pressed in a field (the chat, the play box, any
// text input or select) is the field's, never a shortcut's; so is a key with Ctrl, Alt or Meta.

import { h } from "../lib/dom.js";

/** Each shortcut: the key, the button it presses (its test id) and what it does. */
export const SHORTCUTS = [
  { key: "r", testid: "cmd-roll", what: "Roll (or throw the opening dice, or for the next game)" },
  { key: "d", testid: "cmd-double", what: "Double" },
  { key: "t", testid: "cmd-take", what: "Take the double" },
  { key: "p", testid: "cmd-drop", what: "Drop (pass) the double" },
  { key: "u", testid: "cmd-undo", what: "Undo the last checker moved" },
  { key: "c", testid: "cmd-confirm", what: "Confirm the play" },
];

const NOT_TYPED = new Set(["button", "checkbox", "radio", "submit", "reset", "image", "range", "color", "file"]);

/** Whether a key pressed on `el` goes into a field (where it is typing, not a shortcut). */
export function typingIn(el) {
  if (!el || !el.closest) return false;
  if (el.isContentEditable) return true;
  const field = el.closest("input, textarea, select");
  return Boolean(field) && !(field.tagName === "INPUT" && NOT_TYPED.has(field.type));
}

export class Shortcuts {
  /** Shortcuts for the buttons under `root`; `tell(text)` says what a key could not do. */
  constructor(root, { tell }) {
    this.root = root;
    this.tell = tell;
    this.returnTo = null;
    this.onKey = (ev) => this.key(ev);
    this.button = h(
      "button",
      {
        type: "button",
        class: "shortcuts-open",
        "data-testid": "shortcuts-open",
        "aria-haspopup": "dialog",
        "aria-keyshortcuts": "?",
        "aria-label": "Keyboard shortcuts",
        title: "Keyboard shortcuts (?)",
        onclick: () => this.open(),
      },
      "?",
    );
    const rows = SHORTCUTS.map((s) =>
      h("tr", { "data-testid": `shortcut-${s.key}` }, h("th", { scope: "row" }, h("kbd", {}, s.key.toUpperCase())), h("td", {}, s.what)),
    );
    this.dialog = h(
      "dialog",
      {
        class: "shortcuts",
        role: "dialog",
        "aria-labelledby": "shortcuts-title",
        "data-testid": "shortcuts",
        onclose: () => this.closed(),
      },
      h("h2", { id: "shortcuts-title" }, "Keyboard shortcuts"),
      h("p", {}, "At the table, outside the chat and the play box:"),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Key"), h("th", { scope: "col" }, "Does"))),
        h("tbody", {}, rows, h("tr", { "data-testid": "shortcut-?" }, h("th", { scope: "row" }, h("kbd", {}, "?")), h("td", {}, "Show or hide this list"))),
      ),
      h("p", { class: "muted" }, "A key does what its button does, when the button is offered. Escape closes this list."),
      h("button", { type: "button", "data-testid": "shortcuts-close", onclick: () => this.dialog.close() }, "Close"),
    );
  }

  attach() {
    document.addEventListener("keydown", this.onKey);
    // Each button is marked with its key whenever the page draws it (aria-keyshortcuts).
    this.observer = new MutationObserver(() => this.mark());
    this.observer.observe(this.root, { childList: true, subtree: true });
    this.mark();
  }

  detach() {
    document.removeEventListener("keydown", this.onKey);
    if (this.observer) this.observer.disconnect();
    if (this.dialog.open) this.dialog.close();
  }

  open() {
    if (this.dialog.open) return;
    const active = document.activeElement;
    this.returnTo = active && active !== document.body ? active : this.button;
    this.dialog.showModal();
  }

  /** The panel closed (Escape, its button, `?`): the focus goes back where it was. */
  closed() {
    const back = this.returnTo && this.returnTo.isConnected ? this.returnTo : this.button;
    this.returnTo = null;
    if (back && back.isConnected) back.focus();
  }

  /** Mark each offered button with its key (`aria-keyshortcuts`). */
  mark() {
    for (const s of SHORTCUTS) {
      for (const el of this.root.querySelectorAll(`[data-testid="${s.testid}"]:not([aria-keyshortcuts])`)) {
        el.setAttribute("aria-keyshortcuts", s.key.toUpperCase());
      }
    }
  }

  key(ev) {
    if (ev.defaultPrevented || ev.ctrlKey || ev.altKey || ev.metaKey || ev.isComposing) return;
    if (typingIn(ev.target)) return;
    if (ev.key === "?") {
      ev.preventDefault();
      if (this.dialog.open) this.dialog.close();
      else this.open();
      return;
    }
    if (this.dialog.open || ev.repeat) return;
    const shortcut = SHORTCUTS.find((s) => s.key === ev.key.toLowerCase());
    if (!shortcut) return;
    ev.preventDefault();
    const button = this.root.querySelector(`[data-testid="${shortcut.testid}"]`);
    if (button && !button.disabled) button.click();
    else this.tell(`${shortcut.what}: not offered now.`);
  }
}

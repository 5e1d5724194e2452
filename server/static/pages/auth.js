// Getting in: play as a guest, log in, or register; keeping a guest as an account; and logging
// out. The session is kept in localStorage (api.js), so every tab of the browser is the same
// player, and a guest who closes the tab finds their seat again, until the token expires: two
// players need two browsers (or profiles, or a private window).

import { api, setSession, session } from "../lib/api.js";
import { h } from "../lib/dom.js";

function field(id, label, attrs = {}) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, name: id, "data-testid": id, required: true, ...attrs }),
  );
}

/** The "get in" panel; `done()` is called once the tab has a session. */
export function authPanel(done, showError) {
  const submit = (fn) => async (ev) => {
    ev.preventDefault();
    const form = ev.currentTarget;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      setSession(await fn(new FormData(form)));
      done();
    } catch (err) {
      showError(err.message);
    } finally {
      button.disabled = false;
    }
  };
  const guest = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "guest-title",
      "data-testid": "guest-form",
      onsubmit: submit((f) => api.guest(f.get("guest-name").trim())),
    },
    h("h2", { id: "guest-title" }, "Play as a guest"),
    field("guest-name", "Your name", { autocomplete: "nickname", maxlength: 40 }),
    h("button", { type: "submit", "data-testid": "guest-submit" }, "Play as guest"),
  );
  const login = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "login-title",
      "data-testid": "login-form",
      onsubmit: submit((f) => api.login(f.get("login-username").trim(), f.get("login-password"))),
    },
    h("h2", { id: "login-title" }, "Log in"),
    field("login-username", "Username", { autocomplete: "username" }),
    field("login-password", "Password", { type: "password", autocomplete: "current-password" }),
    h("button", { type: "submit", "data-testid": "login-submit" }, "Log in"),
  );
  const register = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "register-title",
      "data-testid": "register-form",
      onsubmit: submit((f) =>
        api.register(
          f.get("register-username").trim(),
          f.get("register-password"),
          f.get("register-display-name").trim(),
        ),
      ),
    },
    h("h2", { id: "register-title" }, "Register"),
    field("register-username", "Username", { autocomplete: "username" }),
    field("register-password", "Password", { type: "password", autocomplete: "new-password" }),
    field("register-display-name", "Display name", { autocomplete: "nickname", maxlength: 40 }),
    h("button", { type: "submit", "data-testid": "register-submit" }, "Register"),
  );
  return h(
    "section",
    { class: "auth", "aria-labelledby": "auth-title" },
    h("h1", { id: "auth-title" }, "Get in"),
    h("div", { class: "cards" }, guest, login, register),
  );
}

/** The header's account area: who is signed in, and a log-out button. */
export function whoAmI(onChange) {
  const s = session();
  if (!s) return h("span", { class: "who", "data-testid": "who" }, "Not signed in");
  return h(
    "span",
    { class: "who" },
    h(
      "span",
      { "data-testid": "who" },
      `Signed in as ${s.display_name || s.username}${s.guest ? " (guest)" : ""}`,
    ),
    " ",
    h("a", { href: `#/player/${encodeURIComponent(s.username)}`, "data-testid": "my-profile" }, "Profile"),
    s.guest ? keepGuestForm(onChange) : null,
    " ",
    h(
      "button",
      {
        type: "button",
        class: "link",
        "data-testid": "logout",
        onclick: async () => {
          try {
            await api.logout();
          } catch {
            // The session is forgotten here whatever the server says.
          }
          setSession(null);
          onChange();
        },
      },
      "Log out",
    ),
  );
}

/**
 * A guest's "keep this guest as an account": a username and a password turn the guest into a
 * registered account with the same account id (POST /me/account), so its seats, history and
 * ledgers stay its own. The server answers with a fresh token, kept as the session.
 */
function keepGuestForm(onChange) {
  const note = h("p", { class: "muted", role: "status", "data-testid": "keep-status" });
  const form = h(
    "form",
    {
      class: "card keep-form",
      "aria-labelledby": "keep-title",
      "data-testid": "keep-form",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const f = new FormData(form);
        const button = form.querySelector("button[type=submit]");
        button.disabled = true;
        note.textContent = "";
        try {
          setSession(await api.keepGuest(f.get("keep-username").trim(), f.get("keep-password")));
          onChange();
        } catch (err) {
          note.textContent = err.message;
          button.disabled = false;
        }
      },
    },
    h("h2", { id: "keep-title" }, "Keep this guest as an account"),
    h("p", { class: "muted" }, "Your seats, games and ledger stay yours; log in with these from now on."),
    field("keep-username", "Username", { autocomplete: "username", minlength: 3, maxlength: 32 }),
    field("keep-password", "Password", { type: "password", autocomplete: "new-password", minlength: 8 }),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", "data-testid": "keep-submit" }, "Keep as an account"),
      h("button", { type: "button", class: "secondary", "data-testid": "keep-cancel", onclick: () => close() }, "Cancel"),
    ),
    note,
  );
  const summary = h("summary", { "data-testid": "keep-open" }, "Keep this guest");
  const details = h("details", { class: "keep-guest", "data-testid": "keep-guest" }, summary, form);
  const close = () => {
    details.open = false;
    summary.focus();
  };
  form.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") close();
  });
  return details;
}

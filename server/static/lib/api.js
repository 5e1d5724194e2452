// The public HTTP API, and the one place that knows how the session token travels (the
// Authorization header; a WebSocket, which cannot send headers, takes a one-use ticket).

const KEY = "chouette.session";
const CHANGED = "chouette-session"; // this tab's own changes (`storage` tells only the others)

/** An RFC 9457 problem answered by the server (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `request failed (${status})`);
    this.status = status;
    this.body = body || {};
    this.field = this.body.field || null;
  }
}

/**
 * The signed-in account of this browser ({token, account_id, username, display_name, guest,
 * expires_at}). It is kept in localStorage, so every tab of the browser is the same player, a
 * new tab or a reopened browser too, until the token expires (expires_at, in ms since the epoch,
 * from the server's expires_in): then, or when the server answers 401 (the token is unknown,
 * expired or revoked), or on logging out, it is forgotten.
 */
export function session() {
  let value = null;
  try {
    value = JSON.parse(localStorage.getItem(KEY) || "null");
  } catch {
    value = null;
  }
  if (value && typeof value.expires_at === "number" && value.expires_at <= Date.now()) {
    localStorage.removeItem(KEY);
    return null;
  }
  return value && value.token ? value : null;
}

// A session an older page kept in this tab's sessionStorage moves to localStorage, once.
try {
  const older = sessionStorage.getItem(KEY);
  if (older && !localStorage.getItem(KEY)) localStorage.setItem(KEY, older);
  sessionStorage.removeItem(KEY);
} catch {
  // No storage (a sandboxed frame): the page works signed out.
}

/** Keep a token's answer as the session (null: forget it); the page hears of it (onSession). */
export function setSession(value) {
  const before = localStorage.getItem(KEY);
  if (value) {
    const kept = { ...value };
    if (typeof kept.expires_in === "number" && typeof kept.expires_at !== "number") {
      kept.expires_at = Date.now() + kept.expires_in * 1000;
    }
    delete kept.expires_in;
    localStorage.setItem(KEY, JSON.stringify(kept));
  } else {
    localStorage.removeItem(KEY);
  }
  if (before !== localStorage.getItem(KEY)) window.dispatchEvent(new Event(CHANGED));
}

/**
 * Call `fn` whenever the session changes: in this tab (a 401 that forgot it, say) or in
 * another tab of the browser (the `storage` event: a log-in or log-out there). Returns the
 * function that stops listening.
 */
export function onSession(fn) {
  const storage = (ev) => {
    if (ev.key === KEY || ev.key === null) fn();
  };
  window.addEventListener("storage", storage);
  window.addEventListener(CHANGED, fn);
  return () => {
    window.removeEventListener("storage", storage);
    window.removeEventListener(CHANGED, fn);
  };
}

/** A random UUID (version 4); crypto.randomUUID needs a secure context, this does not. */
export function uuid4() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = Array.from(b, (n) => n.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** One request; JSON in and out; a problem becomes an ApiError. */
export async function request(method, path, body, { auth = true } = {}) {
  const headers = { Accept: "application/json" };
  const s = session();
  if (auth && s && s.token) headers.Authorization = `Bearer ${s.token}`;
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, { detail: `The server cannot be reached (${err.message}).` });
  }
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) {
    // The token is no good (expired, revoked): forget it, unless it has been replaced since
    // this request left (a log-in, or a guest kept as an account, in this tab or another).
    if (response.status === 401 && auth && s && session()?.token === s.token) setSession(null);
    throw new ApiError(response.status, typeof data === "object" ? data : { detail: String(data) });
  }
  return data;
}

export const api = {
  guest: (displayName) => request("POST", "/guests", { display_name: displayName }, { auth: false }),
  register: (username, password, displayName) =>
    request("POST", "/accounts", { username, password, display_name: displayName }, { auth: false }),
  login: (username, password) => request("POST", "/sessions", { username, password }, { auth: false }),
  logout: () => request("DELETE", "/sessions"),
  keepGuest: (username, password) => request("POST", "/me/account", { username, password }),
  me: () => request("GET", "/me"),
  lobby: (kind) => request("GET", kind ? `/tables?kind=${encodeURIComponent(kind)}` : "/tables"),
  create: (kind, options, name = "") => request("POST", "/tables", { kind, options, name }),
  table: (id) => request("GET", `/tables/${encodeURIComponent(id)}`),
  replay: (id, at) =>
    request("GET", `/tables/${encodeURIComponent(id)}/replay${at ? `?at=${Number(at)}` : ""}`),
  audit: (id) => request("GET", `/tables/${encodeURIComponent(id)}/audit`),
  analysis: (id, ply = 0) =>
    request("GET", `/tables/${encodeURIComponent(id)}/analysis?ply=${Number(ply)}`),
  seatBot: (id, strength = "basic") =>
    request("POST", `/tables/${encodeURIComponent(id)}/bots`, { command_id: uuid4(), strength }),
  command: (id, command) =>
    request("POST", `/tables/${encodeURIComponent(id)}/commands`, { command_id: uuid4(), command }),
};

/** The .mat export's URL (a chouette names the member whose games to export). */
export function matUrl(id, member) {
  const base = `/tables/${encodeURIComponent(id)}/export.mat`;
  return member ? `${base}?member=${encodeURIComponent(member)}` : base;
}

/**
 * The table's WebSocket URL, resuming after the given versions of each stream; with `views`, a
 * move's message carries every viewer's view after it (the table page's, which shows the view).
 * A signed-in tab first asks for a single-use ticket (POST /tickets): a token never travels in
 * a URL, where it would land in logs. Without a session the socket is anonymous (a spectator's).
 */
export async function socketUrl(id, after, chatAfter, { views = false } = {}) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const q = new URLSearchParams({ after: String(after), chat_after: String(chatAfter) });
  if (views) q.set("views", "1");
  if (session()) {
    try {
      const issued = await request("POST", "/tickets");
      q.set("ticket", issued.ticket);
    } catch (err) {
      // A 401 has forgotten the session (request() does): the socket opens as a spectator's.
      // Anything else (the network, a 429) is the caller's to retry.
      if (err.status !== 401) throw err;
    }
  }
  return `${scheme}//${location.host}/tables/${encodeURIComponent(id)}/ws?${q}`;
}

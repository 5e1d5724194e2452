// The public HTTP API, and the one place that knows how the session token travels (the
// Authorization header; a WebSocket, which cannot send headers, takes a one-use ticket).

const KEY = "chouette.session";

/** An RFC 9457 problem answered by the server (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `request failed (${status})`);
    this.status = status;
    this.body = body || {};
    this.field = this.body.field || null;
  }
}

/** The signed-in account of this tab ({token, account_id, username, display_name, guest}). */
export function session() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

export function setSession(value) {
  if (value) sessionStorage.setItem(KEY, JSON.stringify(value));
  else sessionStorage.removeItem(KEY);
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
    if (response.status === 401 && auth && s) setSession(null);
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
 * The table's WebSocket URL, resuming after the given versions of each stream. A signed-in tab
 * first asks for a single-use ticket (POST /tickets): a token never travels in a URL, where it
 * would land in logs. Without a session the socket is anonymous (a spectator's).
 */
export async function socketUrl(id, after, chatAfter) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const q = new URLSearchParams({ after: String(after), chat_after: String(chatAfter) });
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

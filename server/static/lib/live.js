// Following a table's WebSocket: resume after the last version seen of each stream, never
// apply an event twice, reconnect with backoff, and say so while the connection is down.

import { socketUrl } from "./api.js";

const decoder = new TextDecoder();

/**
 * A table's live feed. `onEvent(msg)` gets each new event once, in order per stream
 * (`msg.s` is "table" or "chat"; a chat event the viewer may not read has no `t`);
 * `onResync(stream, version)` is called when the server cannot resume a stream (the caller
 * refetches the table); `onConnection(state)` gets "open", "lost" or "closed";
 * `onPresence(msg)` gets who is connected to the table when it changes (`msg.connected`, account
 * ids, and `msg.anonymous`, a count; not an event: it has no version).
 */
export class TableFeed {
  constructor(tableId, { onEvent, onResync, onConnection, onPresence }) {
    this.tableId = tableId;
    this.onEvent = onEvent;
    this.onResync = onResync || (() => {});
    this.onConnection = onConnection || (() => {});
    this.onPresence = onPresence || (() => {});
    this.versions = { table: 0, chat: 0 };
    this.ws = null;
    this.stopped = true;
    this.attempt = 0;
    this.timer = null;
    this.down = false;
    this._online = () => this.reconnectNow();
    this._offline = () => this.drop();
  }

  /** Start following after the given versions (the table's from its view; chat from 0). */
  start(tableAfter, chatAfter = 0) {
    this.versions = { table: tableAfter, chat: chatAfter };
    this.stopped = false;
    window.addEventListener("online", this._online);
    window.addEventListener("offline", this._offline);
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this._online);
    window.removeEventListener("offline", this._offline);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(1000, "leaving the table");
    }
    this.onConnection("closed");
  }

  /** Close the socket as if the network dropped it (tests, and the browser going offline). */
  drop() {
    if (this.ws) this.ws.close(4000, "dropped");
  }

  reconnectNow() {
    if (this.stopped || (this.ws && this.ws.readyState <= 1)) return;
    clearTimeout(this.timer);
    this.attempt = 0;
    this.connect();
  }

  async connect() {
    if (this.stopped) return;
    // One attempt at a time: a socket being opened (its ticket being fetched) is this.ws's
    // placeholder, so reconnectNow() does not start a second one.
    const attempt = { readyState: 0, close: () => {} };
    this.ws = attempt;
    let url;
    try {
      // The page shows the table's view: a move's message brings it (followMove).
      url = await socketUrl(this.tableId, this.versions.table, this.versions.chat, { views: true });
    } catch {
      if (this.ws !== attempt) return;
      this.ws = null;
      if (this.stopped) return;
      this.lost();
      return;
    }
    if (this.ws !== attempt || this.stopped) return;
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      if (this.down) this.down = false;
      this.onConnection("open");
    };
    ws.onmessage = (m) => {
      if (this.ws !== ws) return;
      const text = typeof m.data === "string" ? m.data : decoder.decode(m.data);
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        return;
      }
      this.receive(msg, ws);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      this.lost();
    };
    ws.onerror = () => {}; // onclose follows
  }

  /** The connection is down (or could not be made): say so, and try again later. */
  lost() {
    this.down = true;
    this.onConnection("lost");
    this.schedule();
  }

  schedule() {
    clearTimeout(this.timer);
    // 0.5 s, 1 s, 2 s ... up to 10 s, with jitter so a server restart is not stampeded.
    const base = Math.min(10000, 500 * 2 ** this.attempt);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), base / 2 + Math.random() * (base / 2));
  }

  receive(msg, ws) {
    if (msg.ctl === "resync") {
      // The server cannot resume this stream from our version: take its head, let the page
      // refetch the state, and reconnect from there.
      if (msg.stream in this.versions) this.versions[msg.stream] = msg.version;
      this.onResync(msg.stream, msg.version);
      return;
    }
    if (msg.ctl === "presence") {
      this.onPresence(msg);
      return;
    }
    if (msg.ctl) return; // answers to commands sent on the socket (the page uses HTTP)
    const stream = msg.s;
    if (!(stream in this.versions) || typeof msg.v !== "number") return;
    const seen = this.versions[stream];
    if (msg.v <= seen) return; // already applied (a resumed socket never repeats one)
    if (msg.v !== seen + 1) {
      // A gap would lose an event: reconnect from the last version applied.
      ws.close(4001, "gap");
      return;
    }
    this.versions[stream] = msg.v;
    this.onEvent(msg);
  }
}

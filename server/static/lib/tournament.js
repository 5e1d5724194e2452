// What the tournaments' pages make of GET /tournaments/{id} (docs/tournaments.md), without the
// DOM: the bracket laid out in columns, the words for formats, statuses and results, who may do
// what, and the body POST /tournaments takes from the create form's values. Pure, so that Node
// tests it (tests/client/tournament.test.mjs).

export const FORMAT_NAMES = { knockout: "Knockout", swiss: "Swiss", round_robin: "Round robin" };
export const STATUS_NAMES = { entering: "Entering", playing: "Playing", finished: "Finished" };

/** An account id -> the name the entrants list gives it (or a stand-in). */
export function namesOf(view) {
  const names = new Map((view.entrants || []).map((e) => [e.player, e.name || "a player"]));
  return (id) => (id === null || id === undefined ? "" : names.get(id) || "a player");
}

/** A knockout round's title, counted from the final (of `total` rounds). */
export function roundTitle(round, total) {
  const fromEnd = total - round;
  if (fromEnd === 0) return "Final";
  if (fromEnd === 1) return "Semi-finals";
  if (fromEnd === 2) return "Quarter-finals";
  return `Round ${round}`;
}

/**
 * The bracket as columns, one a round (the first to the final), each match with its place in a
 * grid whose rows are the first round's matches: match `i` of round `r` (from 0) covers the rows
 * of the two matches it follows, `i·2^r + 1` for `2^r` rows, so each box sits level with the
 * middle of the pair it comes from. The third-place match gets a row of its own under the rest.
 * Each match carries what the round's board says (its match table, how it was decided), which
 * the bracket itself does not: the API's bracket lists a paired round's matches in board order.
 */
export function bracketLayout(view) {
  const drawn = view.bracket || [];
  const total = drawn.length;
  const firstRows = drawn.length ? drawn[0].length : 0;
  const columns = drawn.map((matches, r) => {
    const boards = (view.rounds || [])[r]?.boards || [];
    return {
      round: r + 1,
      title: roundTitle(r + 1, total),
      matches: matches.map((m, i) => {
        const board = boards[i] || null;
        const third = Boolean(m.third_place);
        return {
          round: r + 1,
          board: i + 1,
          a: m.a,
          b: m.b,
          bye: Boolean(m.bye),
          winner: m.winner,
          thirdPlace: third,
          paired: board !== null,
          tableId: board ? board.table_id : null,
          how: board ? board.how : m.bye ? "bye" : null,
          reason: board ? board.reason : null,
          row: third ? firstRows + 1 : i * 2 ** r + 1,
          span: third ? 1 : 2 ** r,
        };
      }),
    };
  });
  const third = columns.some((c) => c.matches.some((m) => m.thirdPlace));
  return { columns, rows: firstRows + (third ? 1 : 0) };
}

/** How a board was decided, in words (null: still to play). */
export function howText(board, nameOf) {
  if (!board.how && !board.decided) return null;
  const who = board.winner ? nameOf(board.winner) : "nobody";
  switch (board.how) {
    case "bye":
      return `${who} has a bye`;
    case "match":
      return board.forfeit ? `${who} won (a forfeit at the table)` : `${who} won the match`;
    case "no_show":
      return board.winner ? `${who} goes through (neither came)` : "Neither player came";
    case "withdrawal":
      return board.winner ? `${who} won (a withdrawal)` : "Both withdrew";
    case "adjusted":
      return `${who} won (adjusted by the director: ${board.reason || "no reason given"})`;
    default:
      return board.winner ? `${who} won` : "Decided: nobody won";
  }
}

/** The standings' columns for a format: the tie-breaks that format ranks by (docs/tournaments.md,
 * "Standings": a round robin has no Buchholz, which would only repeat the points). */
export function standingColumns(format) {
  const cols = [
    ["rank", "#"],
    ["player", "Player"],
    ["points", "Points"],
    ["played", "Played"],
    ["won", "Won"],
  ];
  if (format === "swiss") cols.push(["buchholz", "Buchholz"]);
  cols.push(["sonneborn_berger", "Sonneborn-Berger"]);
  return cols;
}

/** What the signed-in player (a session, or null) may do on this tournament's page. */
export function allowed(view, me, now = Date.now()) {
  const id = me ? me.account_id : null;
  const entry = (view.entrants || []).find((e) => e.player === id) || null;
  const o = view.options || {};
  const open = view.status === "entering" && !(o.entries_close !== null && o.entries_close !== undefined && o.entries_close <= now);
  const full = o.max_field ? (view.entrants || []).filter((e) => !e.withdrawn).length >= o.max_field : false;
  return {
    enter: Boolean(id) && open && !entry && !full && !(o.rated && me.guest),
    guestBarred: Boolean(id) && open && !entry && Boolean(o.rated && me.guest),
    withdraw: Boolean(entry) && !entry.withdrawn && view.status !== "finished",
    start: Boolean(id) && view.director === id && view.status === "entering",
    adjust: Boolean(id) && view.director === id && view.status === "playing",
  };
}

/** The options in words, for the page's summary line. */
export function describeTournament(o) {
  const out = [FORMAT_NAMES[o.format] || o.format];
  if (o.format === "swiss" && o.rounds) out.push(`${o.rounds} round${o.rounds === 1 ? "" : "s"}`);
  out.push(`${o.match_length}-point matches`);
  if (o.third_place) out.push("a match for third place");
  out.push(o.rated ? "rated" : "not rated");
  if (o.private) out.push("private");
  if (o.max_field) out.push(`at most ${o.max_field} players`);
  if (o.clock === "off") out.push("no clock");
  else if (o.clock && typeof o.clock === "object") out.push(`clock ${o.clock.delay} s a move + ${o.clock.reserve} s`);
  out.push(`a no-show after ${o.show_seconds} s`);
  return out.join(", ");
}

/**
 * POST /tournaments's body from the create form's values (strings, as inputs give them; the
 * check boxes booleans; `invited` the account ids already looked up; `entriesClose` ms or null).
 * Only what goes with the format is sent: Swiss rounds for a Swiss, a third place for a knockout
 * (the server refuses options that do not go together); empty optional fields are left out, so
 * the server's defaults apply.
 */
export function createBody(v) {
  const options = { format: v.format, match_length: Number(v.matchLength) };
  if (v.format === "swiss") options.rounds = Number(v.rounds);
  if (v.format === "knockout" && v.thirdPlace) options.third_place = true;
  if (v.rated) options.rated = true;
  if (v.private) {
    options.private = true;
    if (v.invited && v.invited.length) options.invited = [...v.invited];
  }
  if (String(v.maxField ?? "").trim() !== "") options.max_field = Number(v.maxField);
  if (v.entriesClose !== null && v.entriesClose !== undefined) options.entries_close = v.entriesClose;
  if (String(v.showSeconds ?? "").trim() !== "") options.show_seconds = Number(v.showSeconds);
  if (v.clock === "off") options.clock = "off";
  else if (v.clock === "custom") options.clock = { delay: Number(v.delay), reserve: Number(v.reserve) };
  const body = { options };
  const name = String(v.name ?? "").trim();
  if (name) body.name = name;
  if (v.commandId) body.command_id = v.commandId;
  return body;
}

/** The usernames typed for a private tournament's invitations: split on commas and spaces,
 * each once, in the order typed. */
export function usernames(text) {
  const seen = [];
  for (const part of String(text || "").split(/[\s,]+/)) {
    if (part && !seen.includes(part)) seen.push(part);
  }
  return seen;
}

/** The tournament's live stream (Server-Sent Events), resumed after `after`; `ticket` the
 * one-use ticket of a signed-in tab (POST /tickets: a token never travels in a URL). */
export function streamPath(id, after, ticket = null) {
  const q = new URLSearchParams({ after: String(after) });
  if (ticket) q.set("ticket", ticket);
  return `/tournaments/${encodeURIComponent(id)}/events?${q}`;
}

// Checks server/static/table/table_feed.js's followMove on a real server's moves, written by
// tests/server/streams/test_stream_moves.py into the file CHOUETTE_FOLLOW_MOVE names; not a test
// file of its own (no `.test.` in its name). Each case is one viewer at one move: their table
// view just before it (`before`), the move's stream message (`msg`, with its `m`), who they are
// (`me`: an account id, or null when not signed in) and their table view just after it
// (`after`). What the page makes of the message must be the view after it, but for what time
// alone changes between the two requests (`now`, and the running clock's delay and reserve as
// of it).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { followMove } from "../../server/static/table/table_feed.js";

const path = process.env.CHOUETTE_FOLLOW_MOVE;
if (!path) throw new Error("CHOUETTE_FOLLOW_MOVE names no file: run test_stream_moves.py");
const cases = JSON.parse(readFileSync(path, "utf8"));

/** A view without what only the time of the request changes. */
function timeless(view) {
  const { now, ...rest } = view;
  rest.clocks = (view.clocks || []).map((c) => (c.running ? { ...c, delay_ms: null, reserve_ms: null } : c));
  return rest;
}

describe("following a move from its stream message", () => {
  it("makes every viewer's table view after it", () => {
    assert.ok(cases.length > 0, "no cases");
    for (const c of cases) {
      const followed = followMove(c.before, c.msg, c.me);
      assert.notEqual(followed, null, `v${c.msg.v} as ${c.me}: the page could not follow the move`);
      assert.deepEqual(timeless(followed), timeless(c.after), `v${c.msg.v} as ${c.me}`);
    }
  });

  it("cannot follow a move from a view of another version", () => {
    for (const c of cases.slice(0, 5)) {
      assert.equal(followMove({ ...c.before, version: c.before.version - 1 }, c.msg, c.me), null);
      assert.equal(followMove(c.before, { ...c.msg, m: undefined }, c.me), null);
    }
  });
});

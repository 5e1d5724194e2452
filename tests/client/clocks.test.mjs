// Clocks on the table page (server/static/table/clocks.js): the delay first, then the reserve.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { clockWords, left, minutes } from "../../server/static/table/clocks.js";

const running = { player: "ann", running: true, delay_ms: 12000, reserve_ms: 120000, deadline: 0 };

describe("a clock", () => {
  it("writes minutes and seconds, rounding up", () => {
    assert.equal(minutes(120000), "2:00");
    assert.equal(minutes(59001), "1:00");
    assert.equal(minutes(1), "0:01");
    assert.equal(minutes(0), "0:00");
    assert.equal(minutes(-5), "0:00");
  });

  it("counts the delay down first, then the reserve", () => {
    assert.deepEqual(left(running, 0), { delay: 12000, reserve: 120000 });
    assert.deepEqual(left(running, 4000), { delay: 8000, reserve: 120000 });
    assert.deepEqual(left(running, 19000), { delay: 0, reserve: 113000 });
    assert.deepEqual(left(running, 10 ** 7), { delay: 0, reserve: 0 });
    assert.equal(clockWords(running, 4000), "0:08 + 2:00");
    assert.equal(clockWords(running, 19000), "1:53");
  });

  it("stands still when it is not running", () => {
    const standing = { ...running, running: false, delay_ms: 0, reserve_ms: 95000 };
    assert.deepEqual(left(standing, 60000), { delay: 0, reserve: 95000 });
    assert.equal(clockWords(standing, 60000), "1:35");
  });
});

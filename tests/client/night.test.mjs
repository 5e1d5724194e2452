// A chouette night's page (server/static/pages/night.js): the words and the address it makes.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { nightHash, paymentText, signed } from "../../server/static/pages/night.js";

describe("a night", () => {
  it("signs points as the ledger shows them", () => {
    assert.equal(signed(3), "+3");
    assert.equal(signed(-2), "\u22122");
    assert.equal(signed(0), "0");
  });

  it("words a payment, one point or several", () => {
    assert.equal(paymentText({ payer_name: "Bob", payee_name: "Ann", amount: 1 }), "Bob pays Ann 1 point.");
    assert.equal(paymentText({ payer_name: "Bob", payee_name: "Ann", amount: 4 }), "Bob pays Ann 4 points.");
  });

  it("puts the tables and the window in the address, escaped", () => {
    assert.equal(nightHash(["a", "b"], "", ""), "#/night/a,b");
    assert.equal(nightHash(["a"], "2026-12-03T19:00:00.000Z", ""), "#/night/a/2026-12-03T19%3A00%3A00.000Z");
    assert.equal(
      nightHash(["a"], "2026-12-03T19:00:00.000Z", "2026-12-04T01:00:00.000Z"),
      "#/night/a/2026-12-03T19%3A00%3A00.000Z/2026-12-04T01%3A00%3A00.000Z",
    );
  });
});

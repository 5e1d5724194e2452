// Checks server/static/fair/dice.js against vectors computed by the Python implementation
// (events/domain/dice.py, and tables simulated through the decider). Run by
// tests/client/test_dice_vectors.py, which writes the vectors and names them in
// CHOUETTE_DICE_VECTORS; not a test file of its own (no `.test.` in its name). It runs once with
// Web Crypto and once without (CHOUETTE_WEB_CRYPTO=off, tests/client/web_crypto.mjs), when
// dice.js computes with sha256.js: both paths must give the server's dice.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { hmacSha256, sha256 } from "../../server/static/fair/sha256.js";
import { setUpCrypto } from "./web_crypto.mjs";

const implementation = await setUpCrypto();
const d = await import("../../server/static/fair/dice.js");

const path = process.env.CHOUETTE_DICE_VECTORS;
if (!path) throw new Error("CHOUETTE_DICE_VECTORS names no vector file: run test_dice_vectors.py");
const vectors = JSON.parse(readFileSync(path, "utf8"));

const flat = (game) => game.throws.flatMap((t) => t.dice);
const utf8 = new TextEncoder();

describe(`the hashing (${implementation})`, () => {
  it("is the implementation this run asked for", () => {
    assert.equal(d.hashImplementation(), implementation);
  });

  it("sha256.js gives the Python commitment and key by itself", () => {
    for (const v of vectors.derivations) {
      const seed = d.hexToBytes(v.seed);
      assert.equal(d.bytesToHex(sha256(seed)), v.commitment);
      const hashes = v.client_seeds.map((c) => sha256(utf8.encode(c)));
      const message = new Uint8Array([...utf8.encode(d.KEY_LABEL), ...hashes.flatMap((h) => [...h])]);
      assert.equal(d.bytesToHex(hmacSha256(seed, message)), v.key);
    }
  });
});

describe("derivations", () => {
  for (const [i, v] of vectors.derivations.entries()) {
    it(`vector ${i}: ${JSON.stringify(v.client_seeds).slice(0, 40)}`, async () => {
      assert.equal(await d.commitmentOf(v.seed), v.commitment);
      assert.equal(await d.checkCommitment(v.seed, v.commitment), true);
      assert.equal(d.bytesToHex(await d.gameKey(v.seed, v.client_seeds)), v.key);
      assert.deepEqual(await d.deriveDice(v.seed, v.client_seeds, v.dice.length), v.dice);
      assert.deepEqual(await d.deriveDice(v.seed, v.client_seeds, 7, 13), v.dice.slice(13, 20));
    });
  }

  it("skips the rejected bytes", async () => {
    assert.ok(vectors.rejections.length > 0);
    for (const r of vectors.rejections) {
      const die = await d.diceOf(d.hexToBytes(r.key));
      assert.equal(await die(r.counter), r.die, `counter ${r.counter}`);
    }
  });
});

for (const table of vectors.tables) {
  describe(`a simulated ${table.name} table`, () => {
    const finished = table.games.filter((g) => g.seed);

    it("yields each game's commitment, client seeds and dice in counter order", () => {
      const games = d.gamesFromEvents(table.events);
      assert.deepEqual(
        games.map((g) => g.game),
        table.games.map((g) => g.game),
      );
      for (const [i, g] of games.entries()) {
        const want = table.games[i];
        assert.equal(g.commitment, want.commitment, `game ${g.game}`);
        assert.deepEqual(g.clientSeeds, want.client_seeds, `game ${g.game}`);
        assert.equal(g.seed, want.seed, `game ${g.game}`);
        assert.equal(g.ended, Boolean(want.seed), `game ${g.game}`);
        assert.deepEqual(flat(g), want.dice, `game ${g.game}`);
      }
    });

    it("verifies every finished game and leaves the one in play pending", async () => {
      assert.ok(finished.length >= 2);
      const results = await d.verifyEvents(table.events);
      for (const [i, r] of results.entries()) {
        const want = table.games[i];
        if (want.seed) {
          assert.equal(r.status, "ok", `game ${r.game}: ${JSON.stringify(r)}`);
          assert.equal(r.checked, want.dice.length);
        } else {
          assert.equal(r.status, "pending", `game ${r.game}`);
        }
      }
      for (const g of finished) {
        const result = await d.verifyGame({
          commitment: g.commitment,
          seed: g.seed,
          clientSeeds: g.client_seeds,
          throws: g.dice,
        });
        assert.equal(result.ok, true, `game ${g.game}`);
      }
    });

    it("fails at the tampered throw, naming its version", async () => {
      for (const type of ["line_throw", "opening_throw", "dice_rolled"]) {
        const at = table.events.findLastIndex(
          (m) => m.t === type && finishedGameOf(table.events, m.v),
        );
        if (at < 0) continue;
        const events = structuredClone(table.events);
        const message = events[at];
        let before;
        if (type === "line_throw") {
          const [player] = Object.keys(message.d.throws);
          before = message.d.throws[player];
          message.d.throws[player] = (before % 6) + 1;
        } else {
          before = message.d.dice[0];
          message.d.dice[0] = (before % 6) + 1;
        }
        const failed = (await d.verifyEvents(events)).filter((r) => r.status === "failed");
        assert.equal(failed.length, 1, `${type}: ${JSON.stringify(failed)}`);
        assert.equal(failed[0].version, message.v, type);
        assert.equal(failed[0].firstMismatch.expected, before, type);
        assert.equal(failed[0].firstMismatch.recorded, (before % 6) + 1, type);
      }
    });

    it("fails a game whose revealed seed was changed", async () => {
      const events = structuredClone(table.events);
      const ended = events.find((m) => m.t === "game_ended");
      const seed = ended.d.seed;
      ended.d.seed = seed.slice(0, -1) + (seed.at(-1) === "0" ? "1" : "0");
      const [first] = await d.verifyEvents(events);
      assert.equal(first.status, "failed");
      assert.equal(first.commitmentOk, false);
    });
  });
}

/** Whether the event at `version` belongs to a game that ends in these events. */
function finishedGameOf(events, version) {
  let game = null;
  for (const m of events) {
    if (m.t === "game_started") game = m.d.game;
    if (m.v === version) break;
  }
  return events.some((m) => m.t === "game_ended" && m.d.game === game);
}

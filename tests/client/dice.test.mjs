// Provably fair dice re-derived in the browser (server/static/fair/dice.js), against the worked
// example of docs/dice.md: with Web Crypto here, and without it (a page over plain HTTP) in
// dice_insecure_context.test.mjs, which runs this file with CHOUETTE_WEB_CRYPTO=off. The
// cross-check with the Python implementation on whole simulated tables is
// tests/client/test_dice_vectors.py.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setUpCrypto, withBrokenWebCrypto } from "./web_crypto.mjs";

const implementation = await setUpCrypto();
const d = await import("../../server/static/fair/dice.js");

describe(`the hashing (${implementation})`, () => {
  it("is the implementation this run asked for", () => {
    assert.equal(d.hashImplementation(), implementation);
    assert.equal(Boolean(globalThis.crypto.subtle), implementation === "web-crypto");
  });
});

// docs/dice.md, "A worked example".
const SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
const CLIENT = ["alice-7f3a", "bob likes sixes"];
const KEY = "827c64163a0a0f3ec5c8d3e0a9adf68d099699b94308bf28907e150d7f2886c6";
const KEY_NO_SEEDS = "5417ef586ddfc9ed7633180056854b7bb126545fc422c6201051d20ea5b5f799";
const DICE = [3, 1, 5, 1, 2, 4, 1, 1, 3, 5, 1, 4, 4, 2, 2, 4, 5, 4, 2, 4];
// The same seed with no client seeds (computed with events/domain/dice.py).
const DICE_NO_SEEDS = [3, 3, 3, 6, 6, 3, 2, 1, 4, 6, 6, 3, 2, 6, 3, 4, 2, 3, 6, 1];

describe("hex", () => {
  it("round-trips bytes", () => {
    const bytes = d.hexToBytes(SEED);
    assert.equal(bytes.length, 32);
    assert.equal(bytes[31], 31);
    assert.equal(d.bytesToHex(bytes), SEED);
    assert.equal(d.bytesToHex(d.hexToBytes("ABff")), "abff");
    assert.deepEqual([...d.hexToBytes("")], []);
  });

  it("refuses what is not hex", () => {
    for (const bad of ["abc", "zz", "0x00", " 00", null, 12]) {
      assert.throws(() => d.hexToBytes(bad), TypeError, String(bad));
    }
  });
});

describe("the commitment", () => {
  it("is SHA-256 of the seed", async () => {
    assert.equal(await d.commitmentOf(SEED), COMMITMENT);
    assert.equal(await d.checkCommitment(SEED, COMMITMENT), true);
  });

  it("fails for another seed, another commitment or a seed that is not hex", async () => {
    const other = `${SEED.slice(0, -2)}20`;
    assert.equal(await d.checkCommitment(other, COMMITMENT), false);
    assert.equal(await d.checkCommitment(SEED, `${COMMITMENT.slice(0, -1)}e`), false);
    assert.equal(await d.checkCommitment("not hex", COMMITMENT), false);
    assert.equal(await d.checkCommitment(SEED, undefined), false);
    // Compared as published (lower-case hex), like events/domain/dice.py.
    assert.equal(await d.checkCommitment(SEED, COMMITMENT.toUpperCase()), false);
  });
});

describe("the key and the dice", () => {
  it("mixes the players' seeds into the key", async () => {
    assert.equal(d.bytesToHex(await d.gameKey(SEED, CLIENT)), KEY);
    assert.equal(d.bytesToHex(await d.gameKey(SEED)), KEY_NO_SEEDS);
    assert.notEqual(KEY_NO_SEEDS, COMMITMENT, "the key is not the public commitment");
  });

  it("hashes each client seed on its own, in order", async () => {
    const a = d.bytesToHex(await d.gameKey(SEED, ["ab", "c"]));
    const b = d.bytesToHex(await d.gameKey(SEED, ["a", "bc"]));
    const c = d.bytesToHex(await d.gameKey(SEED, ["c", "ab"]));
    assert.equal(new Set([a, b, c]).size, 3);
    // UTF-8, not UTF-16.
    const e = d.bytesToHex(await d.gameKey(SEED, ["é🎲"]));
    assert.notEqual(e, d.bytesToHex(await d.gameKey(SEED, ["e"])));
  });

  it("derives the worked example's dice", async () => {
    assert.deepEqual(await d.deriveDice(SEED, CLIENT, 20), DICE);
    assert.deepEqual(await d.deriveDice(SEED, [], 20), DICE_NO_SEEDS);
    assert.deepEqual(await d.deriveDice(SEED, CLIENT, 5, 10), DICE.slice(10, 15));
    assert.deepEqual(await d.deriveDice(SEED, CLIENT, 0), []);
  });

  it("rejects bytes 252..255 (die 35: first byte 254, then 237)", async () => {
    const die = await d.diceOf(d.hexToBytes(KEY));
    assert.equal(await die(35), 4);
    assert.equal(await die(0), 3);
    await assert.rejects(die(-1), RangeError);
    await assert.rejects(die(1.5), RangeError);
  });

  it("gives every face", async () => {
    const dice = await d.deriveDice(SEED, CLIENT, 300);
    for (let face = 1; face <= 6; face++) assert.ok(dice.includes(face), `face ${face}`);
    assert.ok(dice.every((x) => Number.isInteger(x) && x >= 1 && x <= 6));
  });

  it("refuses an empty seed", async () => {
    await assert.rejects(d.gameKey("", []), TypeError);
  });
});

describe("verifying a game", () => {
  const throws = [[3, 1], [5, 1], [2, 4], [1, 1], [3, 5]];

  it("passes when every die is the derived one", async () => {
    const result = await d.verifyGame({
      commitment: COMMITMENT,
      seed: SEED,
      clientSeeds: CLIENT,
      throws,
    });
    assert.deepEqual(result, { ok: true, commitmentOk: true, checked: 10, firstMismatch: null });
  });

  it("takes single dice as well as throws", async () => {
    const result = await d.verifyGame({
      commitment: COMMITMENT,
      seed: SEED,
      clientSeeds: CLIENT,
      throws: [3, 1, [5, 1, 2], 4],
    });
    assert.equal(result.ok, true);
    assert.equal(result.checked, 6);
  });

  it("names the first die that differs", async () => {
    const tampered = throws.map((t) => [...t]);
    tampered[2][1] = 6;
    tampered[4][0] = 1;
    const result = await d.verifyGame({
      commitment: COMMITMENT,
      seed: SEED,
      clientSeeds: CLIENT,
      throws: tampered,
    });
    assert.deepEqual(result, {
      ok: false,
      commitmentOk: true,
      checked: 6,
      firstMismatch: { counter: 5, throw: 2, index: 1, recorded: 6, expected: 4 },
    });
  });

  it("fails without the right client seeds, or in another order", async () => {
    for (const clientSeeds of [[], [CLIENT[0]], [...CLIENT].reverse()]) {
      const result = await d.verifyGame({ commitment: COMMITMENT, seed: SEED, clientSeeds, throws });
      assert.equal(result.ok, false);
      assert.equal(result.commitmentOk, true);
      assert.notEqual(result.firstMismatch, null);
    }
  });

  it("fails at the commitment when the seed is not the committed one", async () => {
    const result = await d.verifyGame({
      commitment: COMMITMENT,
      seed: `${SEED.slice(0, -2)}20`,
      clientSeeds: CLIENT,
      throws,
    });
    assert.deepEqual(result, { ok: false, commitmentOk: false, checked: 0, firstMismatch: null });
  });
});

describe("games from a table's events", () => {
  // A chouette's first game: the line is thrown for first (dice 0..), ties throw again among
  // the tied, then the opening throw and the rolls continue the same counter. No client seeds
  // can be added in game 1 (its first throw comes with game_started).
  const N = DICE_NO_SEEDS;
  const chouette = [
    { v: 5, s: "table", t: "game_started", d: { game: 1, dice_commitment: COMMITMENT } },
    { v: 6, s: "table", t: "line_throw", d: { throws: { u_ann: N[0], u_bob: N[1], u_cat: N[2] } } },
    { v: 7, s: "table", t: "line_throw", d: { throws: { u_ann: N[3], u_bob: N[4], u_cat: N[5] } } },
    { v: 8, s: "table", t: "line_throw", d: { throws: { u_ann: N[6], u_bob: N[7] } } },
    { v: 9, s: "table", t: "opening_throw", d: { dice: [N[8], N[9]] } },
    { v: 10, s: "table", t: "checkers_moved", d: { player: "u_bob", moves: [] } },
    { v: 11, s: "table", t: "dice_rolled", d: { player: "u_cat", dice: [N[10], N[11]] } },
    { v: 12, s: "table", t: "dice_rolled", d: { player: "u_bob", dice: [N[12], N[13]] } },
    { v: 13, s: "table", t: "game_ended", d: { game: 1, seed: SEED } },
    { v: 14, s: "table", t: "line_rotated", d: { line: ["u_bob", "u_cat", "u_ann"] } },
    { v: 15, s: "table", t: "game_started", d: { game: 2, dice_commitment: COMMITMENT } },
    { v: 16, s: "table", t: "client_seed_added", d: { player: "u_cat", game: 2, seed: CLIENT[0] } },
    { v: 17, s: "table", t: "client_seed_added", d: { player: "u_bob", game: 2, seed: CLIENT[1] } },
    { v: 18, s: "table", t: "opening_throw", d: { dice: [DICE[0], DICE[1]] } },
    { v: 19, s: "table", t: "dice_rolled", d: { player: "u_bob", dice: [DICE[2], DICE[3]] } },
  ];

  it("collects each game's commitment, seeds and throws", () => {
    const games = d.gamesFromEvents(chouette);
    assert.equal(games.length, 2);
    const [one, two] = games;
    assert.equal(one.game, 1);
    assert.equal(one.commitment, COMMITMENT);
    assert.equal(one.seed, SEED);
    assert.equal(one.ended, true);
    assert.deepEqual(one.clientSeeds, []);
    assert.deepEqual(
      one.throws.map((t) => [t.version, t.type, t.dice]),
      [
        [6, "line_throw", N.slice(0, 3)],
        [7, "line_throw", N.slice(3, 6)],
        [8, "line_throw", N.slice(6, 8)],
        [9, "opening_throw", N.slice(8, 10)],
        [11, "dice_rolled", N.slice(10, 12)],
        [12, "dice_rolled", N.slice(12, 14)],
      ],
    );
    assert.deepEqual(two.clientSeeds, CLIENT);
    assert.equal(two.ended, false);
    assert.equal(two.seed, "");
  });

  it("verifies the finished games and leaves the game in play pending", async () => {
    const results = await d.verifyEvents(chouette);
    assert.deepEqual(
      results.map((r) => [r.game, r.status, r.ok, r.checked]),
      [
        [1, "ok", true, 14],
        [2, "pending", false, 0],
      ],
    );
    const ended = [
      ...chouette,
      { v: 20, s: "table", t: "game_ended", d: { game: 2, seed: SEED } },
    ];
    const both = await d.verifyEvents(ended);
    assert.deepEqual(
      both.map((r) => [r.game, r.status, r.checked]),
      [
        [1, "ok", 14],
        [2, "ok", 4],
      ],
    );
  });

  it("names the version of a tampered throw", async () => {
    const tampered = structuredClone(chouette);
    tampered[2].d.throws.u_bob = (N[4] % 6) + 1; // line_throw at version 7, die 4
    const [one] = await d.verifyEvents(tampered);
    assert.equal(one.status, "failed");
    assert.equal(one.version, 7);
    assert.deepEqual(one.firstMismatch, {
      counter: 4,
      throw: 1,
      index: 1,
      recorded: (N[4] % 6) + 1,
      expected: N[4],
    });
    const rolled = structuredClone(chouette);
    rolled[7].d.dice = [N[12], (N[13] % 6) + 1];
    const [again] = await d.verifyEvents(rolled);
    assert.equal(again.version, 12);
    assert.equal(again.firstMismatch.counter, 13);
  });

  it("fails a game whose revealed seed is not the committed one", async () => {
    const changed = structuredClone(chouette);
    changed[8].d.seed = `${SEED.slice(0, -2)}20`;
    const [one] = await d.verifyEvents(changed);
    assert.equal(one.status, "failed");
    assert.equal(one.commitmentOk, false);
    assert.equal(one.version, null);
  });

  it("reads replay events and bare events too", () => {
    const replay = chouette.map((m) => ({ v: m.v, type: m.t, data: m.d }));
    const bare = chouette.map((m) => ({ type: m.t, ...m.d }));
    const flat = (events) => d.gamesFromEvents(events).map((g) => g.throws.map((t) => t.dice));
    assert.deepEqual(flat(replay), flat(chouette));
    assert.deepEqual(flat(bare), flat(chouette));
    assert.equal(d.gamesFromEvents(bare)[0].throws[0].version, null);
  });

  it("reads a line throw as an object or as a list", () => {
    assert.deepEqual(d.lineThrowDice({ u_b: 5, u_a: 2 }), [5, 2]);
    assert.deepEqual(
      d.lineThrowDice([
        ["u_b", 5],
        ["u_a", 2],
      ]),
      [5, 2],
    );
    assert.deepEqual(
      d.lineThrowDice([
        { player: "u_b", die: 5 },
        { player: "u_a", die: 2 },
      ]),
      [5, 2],
    );
  });

  it("reports a game with no commitment (imported) as uncommitted", async () => {
    const imported = [
      { t: "game_started", d: { game: 1, dice_commitment: "" } },
      { t: "opening_throw", d: { dice: [3, 1] } },
      { t: "game_ended", d: { game: 1, seed: "" } },
    ];
    const [one] = await d.verifyEvents(imported);
    assert.equal(one.status, "uncommitted");
    assert.equal(one.ok, false);
  });

  it("says a game whose hashes cannot be computed is unchecked, never failed", async () => {
    const results = await withBrokenWebCrypto(() => d.verifyEvents(chouette));
    assert.deepEqual(
      results.map((r) => [r.game, r.status, r.ok]),
      [
        [1, "unchecked", false],
        [2, "pending", false],
      ],
    );
    assert.match(results[0].reason, /could not be computed.*SHA-256 is out of order/);
    await withBrokenWebCrypto(() =>
      assert.rejects(d.checkCommitment(SEED, COMMITMENT), /SHA-256 is out of order/),
    );
    // Still false, with no hashing, for what no bytes could hash to.
    assert.equal(await withBrokenWebCrypto(() => d.checkCommitment("not hex", COMMITMENT)), false);
    // And the real hashes are back.
    assert.equal((await d.verifyEvents(chouette))[0].status, "ok");
  });
});

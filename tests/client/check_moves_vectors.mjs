// Checks server/static/board/moves.js on the engine's real legal plays and routes, written by
// tests/client/test_moves_vectors.py into the file CHOUETTE_MOVES_VECTORS names; not a test
// file of its own (no `.test.` in its name). Each case holds the plays twice: the table view's
// list (`plays`, with the engine's notation and result of each) and the tree of steps that a
// throw's message sends (`tree`); the page must play the same from either.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import * as m from "../../server/static/board/moves.js";

const path = process.env.CHOUETTE_MOVES_VECTORS;
if (!path) throw new Error("CHOUETTE_MOVES_VECTORS names no file: run test_moves_vectors.py");
const cases = JSON.parse(readFileSync(path, "utf8"));

const label = (c) => `${c.dice.join("-")} ${c.mover.join(",")} / ${c.opponent.join(",")}`;
const multiset = (route) => route.map(([a, b]) => `${a}/${b}`).sort().join(" ");
const FORMS = ["plays", "tree"];

describe("the engine's plays as a tree of steps", () => {
  it("are the list's plays, each with the list's routes and the engine's notation", () => {
    for (const c of cases) {
      const listed = new Map(c.plays.map((p) => [p.notation, p.steps.map(multiset).sort()]));
      const fromTree = new Map();
      for (const k of m.candidates(c.tree, [])) {
        const routes = fromTree.get(k.notation) ?? [];
        routes.push(multiset(k.route.map((s) => [s.from, s.to])));
        fromTree.set(k.notation, routes);
      }
      for (const routes of fromTree.values()) routes.sort();
      assert.deepEqual(fromTree, listed, label(c));
      assert.equal(m.playCount(c.tree), c.plays.length, label(c));
    }
  });

  it("sends moves that make the play, in an order the board allows", () => {
    for (const c of cases) {
      const board = { mover: c.mover, opponent: c.opponent };
      for (const play of c.plays) {
        const moves = m.playMoves(c.tree, play.notation);
        const shown = m.applySteps(board, moves); // throws if a step has no checker to move
        assert.deepEqual(shown.mover, play.result.mover, `${label(c)} ${play.notation}`);
        assert.deepEqual(shown.opponent, play.result.opponent, `${label(c)} ${play.notation}`);
      }
    }
  });
});

for (const form of FORMS) {
  describe(`the engine's plays, entered one die at a time (from the ${form})`, () => {
    it("has cases", () => assert.ok(cases.length > 100));

    it("enters every route of every play and completes it", () => {
      for (const c of cases) {
        const board = { mover: c.mover, opponent: c.opponent };
        const given = c[form];
        // The case of 2,220 plays: every 50th play (the whole tree is checked above).
        const plays = c.plays.length > 500 ? c.plays.filter((_, i) => i % 50 === 0) : c.plays;
        for (const play of plays) {
          for (const route of play.steps) {
            const made = [];
            for (const [from, to] of route) {
              assert.ok(m.sources(given, board, made).includes(from), `${label(c)} ${play.notation}`);
              const d = m.destinations(given, board, made, from).find((x) => x.to === to);
              assert.deepEqual(d?.steps, [[from, to]], `${label(c)} ${play.notation}: ${from}/${to}`);
              assert.equal(m.completed(given, made), null);
              made.push([from, to]);
            }
            assert.equal(m.completed(given, made), play.notation, label(c));
            assert.deepEqual(m.sources(given, board, made), [], label(c));
            const shown = m.applySteps(board, made);
            assert.deepEqual(shown.mover, play.result.mover, `${label(c)} ${play.notation}`);
            assert.deepEqual(shown.opponent, play.result.opponent, `${label(c)} ${play.notation}`);
          }
        }
      }
    });

    it("offers only destinations that some play continues", () => {
      for (const c of cases) {
        const board = { mover: c.mover, opponent: c.opponent };
        const given = c[form];
        const starts = new Set(c.plays.flatMap((p) => p.steps.flatMap((r) => r.map((s) => s[0]))));
        for (const from of m.sources(given, board, [])) {
          assert.ok(starts.has(from), label(c));
          for (const d of m.destinations(given, board, [], from)) {
            assert.ok(m.remainingPlays(given, d.steps).length > 0, `${label(c)} ${from}/${d.to}`);
            const shown = m.applySteps(board, d.steps);
            assert.equal(d.hits, shown.hits.length > 0, `${label(c)} ${from}/${d.to}`);
          }
        }
      }
    });

    it("names each play by its own notation", () => {
      for (const c of cases) {
        if (c.plays.length > 500) continue; // typed text is matched play by play: too slow here
        const given = c[form];
        for (const play of c.plays) {
          assert.equal(m.matchNotation(given, play.notation).play, play.notation, label(c));
          assert.equal(
            m.matchNotation(given, play.notation.toUpperCase().replaceAll("/", "-")).play,
            play.notation,
            label(c),
          );
        }
      }
    });

    it("offers the only play in one click, and knows when there is none", () => {
      for (const c of cases) {
        const given = c[form];
        assert.equal(m.cannotMove(given), c.plays.length === 0, label(c));
        assert.equal(m.onlyPlay(given), c.plays.length === 1 ? c.plays[0].notation : null);
      }
      assert.ok(cases.some((c) => c.plays.length === 0));
    });
  });
}

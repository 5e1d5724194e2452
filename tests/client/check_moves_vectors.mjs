// Checks server/static/board/moves.js on the engine's real legal plays and routes, written by
// tests/client/test_moves_vectors.py into the file CHOUETTE_MOVES_VECTORS names; not a test
// file of its own (no `.test.` in its name).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import * as m from "../../server/static/board/moves.js";

const path = process.env.CHOUETTE_MOVES_VECTORS;
if (!path) throw new Error("CHOUETTE_MOVES_VECTORS names no file: run test_moves_vectors.py");
const cases = JSON.parse(readFileSync(path, "utf8"));

const label = (c) => `${c.dice.join("-")} ${c.mover.join(",")} / ${c.opponent.join(",")}`;

describe("the engine's plays, entered one die at a time", () => {
  it("has cases", () => assert.ok(cases.length > 100));

  it("enters every route of every play and completes it", () => {
    for (const c of cases) {
      const board = { mover: c.mover, opponent: c.opponent };
      for (const play of c.plays) {
        for (const route of play.steps) {
          const made = [];
          for (const [from, to] of route) {
            assert.ok(m.sources(c.plays, board, made).includes(from), `${label(c)} ${play.notation}`);
            const d = m.destinations(c.plays, board, made, from).find((x) => x.to === to);
            assert.deepEqual(d?.steps, [[from, to]], `${label(c)} ${play.notation}: ${from}/${to}`);
            assert.equal(m.completed(c.plays, made), null);
            made.push([from, to]);
          }
          assert.equal(m.completed(c.plays, made), play.notation, label(c));
          assert.deepEqual(m.sources(c.plays, board, made), [], label(c));
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
      const starts = new Set(c.plays.flatMap((p) => p.steps.flatMap((r) => r.map((s) => s[0]))));
      for (const from of m.sources(c.plays, board, [])) {
        assert.ok(starts.has(from), label(c));
        for (const d of m.destinations(c.plays, board, [], from)) {
          assert.ok(m.remainingPlays(c.plays, d.steps).length > 0, `${label(c)} ${from}/${d.to}`);
          const shown = m.applySteps(board, d.steps);
          assert.equal(d.hits, shown.hits.length > 0, `${label(c)} ${from}/${d.to}`);
        }
      }
    }
  });

  it("names each play by its own notation", () => {
    for (const c of cases) {
      for (const play of c.plays) {
        assert.equal(m.matchNotation(c.plays, play.notation).play, play.notation, label(c));
        assert.equal(
          m.matchNotation(c.plays, play.notation.toUpperCase().replaceAll("/", "-")).play,
          play.notation,
          label(c),
        );
      }
    }
  });

  it("offers the only play in one click, and knows when there is none", () => {
    for (const c of cases) {
      assert.equal(m.cannotMove(c.plays), c.plays.length === 0, label(c));
      assert.equal(m.onlyPlay(c.plays), c.plays.length === 1 ? c.plays[0].notation : null);
    }
    assert.ok(cases.some((c) => c.plays.length === 0));
  });
});

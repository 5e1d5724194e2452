// Move input without rules (server/static/board/moves.js): sources, destinations, completion, undo,
// the partial board, one-click plays and typed notation, all from the server's list of plays.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import * as m from "../../server/static/board/moves.js";

const START = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];

function counts(points) {
  const b = new Array(26).fill(0);
  for (const [p, n] of Object.entries(points)) b[Number(p)] = n;
  return b;
}

const start = { mover: START, opponent: START };

// Some of the plays of 5-2 from the start (the client needs no complete list to be tested).
const FIVE_TWO = [
  {
    notation: "13/6",
    steps: [
      [
        [13, 8],
        [8, 6],
      ],
      [
        [13, 11],
        [11, 6],
      ],
    ],
  },
  { notation: "13/11 13/8", steps: [[[13, 8], [13, 11]]] },
  { notation: "13/8 6/4", steps: [[[13, 8], [6, 4]]] },
  { notation: "24/22 13/8", steps: [[[24, 22], [13, 8]]] },
  { notation: "8/3 6/4", steps: [[[8, 3], [6, 4]]] },
];

describe("the server's plays", () => {
  it("are checked and normalised", () => {
    const p = m.normalisePlay({ notation: "24/18*", steps: [[[24, 18, true]]] });
    assert.deepEqual(p, { notation: "24/18*", routes: [[{ from: 24, to: 18, hit: true }]] });
    assert.deepEqual(m.normalisePlay({ notation: "8/5 6/5", steps: [[[8, 5, false], [6, 5]]] }), {
      notation: "8/5 6/5",
      routes: [
        [
          { from: 8, to: 5, hit: false },
          { from: 6, to: 5, hit: false },
        ],
      ],
    });
    assert.deepEqual(m.normalisePlay({ notation: "13/7" }), { notation: "13/7", routes: [] });
  });

  it("refuses what is not a play", () => {
    for (const bad of [
      null,
      {},
      { notation: 5 },
      { notation: "x", steps: {} },
      { notation: "x", steps: [[[5, 5]]] },
      { notation: "x", steps: [[[5, 7]]] },
      { notation: "x", steps: [[[26, 20]]] },
      { notation: "x", steps: [[[6, -1]]] },
      { notation: "x", steps: [[[6, 1, "yes"]]] },
      { notation: "x", steps: [[[6, 1, false, 1]]] },
      { notation: "x", steps: [[[6, 1.5]]] },
      { notation: "x", steps: [[[6, 5], [6, 5], [6, 5], [6, 5], [6, 5]]] },
    ]) {
      assert.throws(() => m.normalisePlay(bad), TypeError, JSON.stringify(bad));
    }
    assert.throws(() => m.sources("13/7", start, []), TypeError);
    assert.throws(() => m.sources(FIVE_TWO, start, [[7, 13]]), TypeError);
  });
});

describe("steps one die at a time", () => {
  it("offers the sources of every listed play", () => {
    assert.deepEqual(m.sources(FIVE_TWO, start, []), [24, 13, 8, 6]);
  });

  it("offers one-die and combined destinations, nearest first", () => {
    assert.deepEqual(m.destinations(FIVE_TWO, start, [], 13), [
      { to: 11, steps: [[13, 11]], hits: false },
      { to: 8, steps: [[13, 8]], hits: false },
      {
        to: 6,
        steps: [
          [13, 8],
          [8, 6],
        ],
        hits: false,
      },
    ]);
    assert.deepEqual(
      m.destinations(FIVE_TWO, start, [], 24).map((d) => d.to),
      [22],
    );
    assert.deepEqual(m.destinations(FIVE_TWO, start, [], 7), [], "no checker there");
    assert.deepEqual(m.destinations(FIVE_TWO, start, [], 99), []);
  });

  it("narrows the choice as steps are made", () => {
    const made = [[13, 8]];
    assert.deepEqual(m.remainingPlays(FIVE_TWO, made).sort(), [
      "13/11 13/8",
      "13/6",
      "13/8 6/4",
      "24/22 13/8",
    ]);
    assert.deepEqual(m.sources(FIVE_TWO, start, made), [24, 13, 8, 6]);
    assert.deepEqual(
      m.destinations(FIVE_TWO, start, made, 8).map((d) => [d.to, d.steps]),
      [[6, [[8, 6]]]],
    );
    assert.deepEqual(
      m.destinations(FIVE_TWO, start, made, 13).map((d) => d.to),
      [11],
    );
    assert.equal(m.completed(FIVE_TWO, made), null);
    const after = [...made, [6, 4]];
    assert.equal(m.completed(FIVE_TWO, after), "13/8 6/4");
    assert.deepEqual(m.sources(FIVE_TWO, start, after), []);
  });

  it("completes a play by any of its routes, in any order", () => {
    assert.equal(
      m.completed(FIVE_TWO, [
        [13, 8],
        [8, 6],
      ]),
      "13/6",
    );
    assert.equal(
      m.completed(FIVE_TWO, [
        [13, 11],
        [11, 6],
      ]),
      "13/6",
    );
    assert.equal(
      m.completed(FIVE_TWO, [
        [8, 6],
        [13, 8],
      ]),
      "13/6",
    );
    assert.equal(
      m.completed(FIVE_TWO, [
        [13, 11],
        [13, 8],
      ]),
      "13/11 13/8",
    );
    assert.equal(m.completed(FIVE_TWO, [[24, 22]]), null);
    assert.equal(m.completed(FIVE_TWO, []), null);
    assert.deepEqual(m.remainingPlays(FIVE_TWO, [[24, 19]]), [], "not part of any play");
  });

  it("never offers a step from a place the mover has not reached", () => {
    // 8 is empty: 13/6 can only pass by 8 after 13/8.
    const board = { mover: counts({ 13: 2, 6: 13 }), opponent: START };
    const plays = [{ notation: "13/6", steps: [[[13, 8], [8, 6]]] }];
    assert.deepEqual(m.sources(plays, board, []), [13]);
    assert.deepEqual(m.sources(plays, board, [[13, 8]]), [8]);
    assert.deepEqual(
      m.destinations(plays, board, [], 13).map((d) => d.to),
      [8, 6],
    );
    assert.equal(m.stepsTo(plays, board, [], 8, 6), null);
  });

  it("gives the steps for a click or a drag", () => {
    assert.deepEqual(m.stepsTo(FIVE_TWO, start, [], 13, 6), [
      [13, 8],
      [8, 6],
    ]);
    assert.deepEqual(m.stepsTo(FIVE_TWO, start, [], 6, 4), [[6, 4]]);
    assert.equal(m.stepsTo(FIVE_TWO, start, [], 6, 1), null);
    assert.equal(m.stepsTo(FIVE_TWO, start, [], 13, 13), null);
  });

  it("undoes the last step", () => {
    const made = [
      [13, 8],
      [8, 6],
    ];
    assert.deepEqual(m.undo(made), [[13, 8]]);
    assert.deepEqual(m.undo(m.undo(made)), []);
    assert.deepEqual(m.undo([]), []);
    assert.equal(made.length, 2, "the caller's list is left alone");
  });
});

describe("hits", () => {
  // The opponent has a blot on the mover's 11 (their 14), nothing on the mover's 8 side.
  const opponent = counts({ 14: 1, 19: 5, 17: 3, 12: 5, 1: 1 });
  const board = { mover: START, opponent };
  const plays = [
    { notation: "13/6", steps: [[[13, 8], [8, 6]]] },
    { notation: "13/11*/6", steps: [[[13, 11, true], [11, 6]]] },
    { notation: "13/11* 6/1", steps: [[[13, 11, true], [6, 1]]] },
  ];

  it("shows the hit checker on the opponent's bar", () => {
    const after = m.applySteps(board, [[13, 11]]);
    assert.equal(after.mover[13], 4);
    assert.equal(after.mover[11], 1);
    assert.equal(after.opponent[14], 0);
    assert.equal(after.opponent[25], 1);
    assert.deepEqual(after.hits, [0]);
    assert.equal(board.opponent[14], 1, "the caller's board is left alone");
  });

  it("prefers the path that hits nothing, and says when a path hits", () => {
    const to6 = m.destinations(plays, board, [], 13).find((d) => d.to === 6);
    assert.deepEqual(to6, {
      to: 6,
      steps: [
        [13, 8],
        [8, 6],
      ],
      hits: false,
    });
    const only = plays.slice(1, 2);
    assert.deepEqual(m.destinations(only, board, [], 13), [
      { to: 11, steps: [[13, 11]], hits: true },
      {
        to: 6,
        steps: [
          [13, 11],
          [11, 6],
        ],
        hits: true,
      },
    ]);
  });

  it("judges hits on the board, whichever checker lands first", () => {
    const blot5 = { mover: START, opponent: counts({ 20: 1, 12: 5, 17: 3, 19: 5, 1: 1 }) };
    const after = m.applySteps(blot5, [
      [6, 5],
      [8, 5],
    ]);
    assert.deepEqual(after.hits, [0]);
    assert.equal(after.opponent[25], 1);
    assert.equal(after.mover[5], 2);
  });

  it("moves onto the bar-side and off the board", () => {
    const race = { mover: counts({ 25: 1, 3: 2, 0: 12 }), opponent: counts({ 0: 15 }) };
    const after = m.applySteps(race, [
      [25, 20],
      [3, 0],
    ]);
    assert.equal(after.mover[25], 0);
    assert.equal(after.mover[20], 1);
    assert.equal(after.mover[0], 13);
    assert.deepEqual(after.hits, []);
  });

  it("refuses a step from an empty place", () => {
    assert.throws(() => m.applySteps(start, [[7, 1]]), RangeError);
    assert.throws(() => m.applySteps({ mover: START }, []), TypeError);
  });
});

describe("the bar and bearing off", () => {
  it("enters from the bar", () => {
    const board = { mover: counts({ 25: 1, 13: 5, 6: 5, 8: 4 }), opponent: START };
    const plays = [
      { notation: "bar/22 13/8", steps: [[[25, 22], [13, 8]]] },
      { notation: "bar/20 8/5", steps: [[[25, 20], [8, 5]]] },
      { notation: "bar/17", steps: [[[25, 22], [22, 17]], [[25, 20], [20, 17]]] },
    ];
    // Rules-free: the steps of a listed play may be made in any order (the play made is the
    // same), so 13/8 is offered before bar/22 too.
    assert.deepEqual(m.sources(plays, board, []), [25, 13, 8]);
    assert.deepEqual(
      m.destinations(plays, board, [], 25).map((d) => [d.to, d.steps.length]),
      [
        [22, 1],
        [20, 1],
        [17, 2],
      ],
    );
    assert.equal(
      m.completed(plays, [
        [25, 20],
        [20, 17],
      ]),
      "bar/17",
    );
  });

  it("bears off to 0", () => {
    const board = { mover: counts({ 6: 1, 4: 1, 0: 13 }), opponent: counts({ 0: 15 }) };
    const plays = [
      { notation: "6/off 4/off", steps: [[[6, 0], [4, 0]]] },
      { notation: "6/2/off", steps: [[[6, 2], [2, 0]]] },
    ];
    const ds = m.destinations(plays, board, [], 6);
    assert.deepEqual(
      ds.map((d) => [d.to, d.steps]),
      [
        [2, [[6, 2]]],
        [0, [[6, 0]]],
      ],
    );
    assert.equal(m.completed(plays, [[6, 0], [4, 0]]), "6/off 4/off");
    assert.equal(m.applySteps(board, [[6, 0], [4, 0]]).mover[0], 15);
  });
});

describe("doubles", () => {
  const plays = [
    {
      notation: "13/7(2)",
      steps: [
        [
          [13, 10],
          [13, 10],
          [10, 7],
          [10, 7],
        ],
      ],
    },
    {
      notation: "13/1",
      steps: [
        [
          [13, 10],
          [10, 7],
          [7, 4],
          [4, 1],
        ],
      ],
    },
    {
      notation: "24/21(2) 13/10(2)",
      steps: [
        [
          [24, 21],
          [24, 21],
          [13, 10],
          [13, 10],
        ],
      ],
    },
  ];

  it("chains up to four steps of one checker", () => {
    assert.deepEqual(
      m.destinations(plays, start, [], 13).map((d) => [d.to, d.steps.length]),
      [
        [10, 1],
        [7, 2],
        [4, 3],
        [1, 4],
      ],
    );
  });

  it("completes with the same steps in any order", () => {
    const made = [
      [13, 10],
      [10, 7],
      [13, 10],
      [10, 7],
    ];
    for (let i = 1; i < 4; i++) assert.equal(m.completed(plays, made.slice(0, i)), null);
    assert.equal(m.completed(plays, made), "13/7(2)");
    assert.deepEqual(
      m.destinations(plays, start, made.slice(0, 2), 13).map((d) => d.to),
      [10, 7],
    );
  });
});

describe("one click, or no move", () => {
  it("offers the only play", () => {
    assert.equal(m.onlyPlay([{ notation: "6/off 5/off", steps: [[[6, 0], [5, 0]]] }]), "6/off 5/off");
    assert.equal(m.onlyPlay(FIVE_TWO), null);
    assert.equal(m.onlyPlay([]), null);
    assert.equal(m.cannotMove(FIVE_TWO), false);
    assert.equal(m.cannotMove([{ notation: "13/7", steps: [[[13, 7]]] }]), false);
  });

  it("knows when the player cannot move", () => {
    assert.equal(m.cannotMove([]), true);
    const pass = [{ notation: "", steps: [[]] }];
    assert.equal(m.cannotMove(pass), true);
    assert.equal(m.onlyPlay(pass), "");
    assert.equal(m.completed(pass, []), "", "the empty play is complete at once");
    assert.deepEqual(m.sources(pass, start, []), []);
  });
});

describe("typed notation", () => {
  it("parses what players write", () => {
    assert.deepEqual(m.parseNotation("24/18 13/8*").segments, [
      [24, 18],
      [13, 8],
    ]);
    assert.deepEqual(m.parseNotation(" BAR-22,  6-OFF ").segments, [
      [25, 22],
      [6, 0],
    ]);
    assert.deepEqual(m.parseNotation("b/22 6/o").segments, [
      [25, 22],
      [6, 0],
    ]);
    assert.deepEqual(m.parseNotation("25/22 6/0").segments, [
      [25, 22],
      [6, 0],
    ]);
    assert.deepEqual(m.parseNotation("13/7 (2)").segments, [
      [13, 7],
      [13, 7],
    ]);
    assert.deepEqual(m.parseNotation("24/18*/13").segments, [
      [24, 18],
      [18, 13],
    ]);
    assert.deepEqual(m.parseNotation("8/2*(2)").chains, [
      { points: [8, 2], marks: [false, true], count: 2 },
    ]);
    assert.deepEqual(m.parseNotation("8/2(2)*").chains[0].marks, [false, true]);
    assert.deepEqual(m.parseNotation("13 / 7 *").chains[0].marks, [false, true]);
    for (const pass of ["", "  ", "-", "pass", "No Move", "cannot move"]) {
      assert.deepEqual(m.parseNotation(pass), { pass: true }, pass);
    }
  });

  it("refuses what is not notation", () => {
    for (const bad of [
      "13",
      "13/",
      "/7",
      "7/13",
      "13/13",
      "26/20",
      "13/7(0)",
      "13/7(5)",
      "13/7(2",
      "hello",
      "13/7 x",
      "1000/1",
      "13//7",
      null,
      42,
    ]) {
      assert.equal(m.parseNotation(bad), null, String(bad));
    }
  });

  it("spells a play one canonical way", () => {
    assert.equal(m.canonicalNotation("8/7 13/7"), m.canonicalNotation("13/7, 8/7"));
    assert.equal(m.canonicalNotation("13/7(2)"), m.canonicalNotation("13/7 13/7"));
    assert.equal(m.canonicalNotation("BAR/22 6/OFF"), m.canonicalNotation("25/22 6/0"));
    assert.notEqual(m.canonicalNotation("13/7*"), m.canonicalNotation("13/7"));
    assert.equal(m.canonicalNotation("13/7*", { marks: false }), m.canonicalNotation("13/7"));
    assert.equal(m.canonicalNotation("pass"), "");
    assert.equal(m.canonicalNotation("x"), null);
  });

  it("matches the server's plays however they are written", () => {
    const match = (text) => m.matchNotation(FIVE_TWO, text).play;
    assert.equal(match("13/6"), "13/6");
    assert.equal(match("13/8/6"), "13/6");
    assert.equal(match("13/11 11/6"), "13/6");
    assert.equal(match("13-8, 8-6"), "13/6");
    assert.equal(match("13/8 13/11"), "13/11 13/8");
    assert.equal(match("6/4 13/8"), "13/8 6/4");
    assert.equal(match("8-3 6-4"), "8/3 6/4");
    assert.equal(match("13/8*  6/4"), "13/8 6/4", "a stray mark is ignored");
  });

  it("leaves to the server what the list does not have", () => {
    assert.deepEqual(m.matchNotation(FIVE_TWO, "24/18 13/11"), {
      play: null,
      candidates: [],
      parsed: true,
    });
    assert.deepEqual(m.matchNotation(FIVE_TWO, "13/8"), {
      play: null,
      candidates: [],
      parsed: true,
    });
    assert.deepEqual(m.matchNotation(FIVE_TWO, "nonsense"), {
      play: null,
      candidates: [],
      parsed: false,
    });
  });

  it("tells plays apart by the way they are written", () => {
    // 5-2 with a blot on 11: 13/6 passing by 8 hits nothing, passing by 11 hits.
    const plays = [
      {
        notation: "13/6",
        steps: [
          [
            [13, 8],
            [8, 6],
          ],
        ],
      },
      {
        notation: "13/11*/6",
        steps: [
          [
            [13, 11, true],
            [11, 6],
          ],
        ],
      },
    ];
    assert.deepEqual(m.matchNotation(plays, "13/6"), {
      play: "13/6",
      candidates: ["13/6", "13/11*/6"],
      parsed: true,
    });
    assert.equal(m.matchNotation(plays, "13/11*/6").play, "13/11*/6");
    assert.equal(m.matchNotation(plays, "13/11/6").play, "13/11*/6");
    assert.equal(m.matchNotation(plays, "13/11* 11/6").play, "13/11*/6");
    assert.equal(m.matchNotation(plays, "13/8/6").play, "13/6");
  });

  it("matches repeats of doubles and the empty play", () => {
    const plays = [
      {
        notation: "13/7(2)",
        steps: [
          [
            [13, 10],
            [13, 10],
            [10, 7],
            [10, 7],
          ],
        ],
      },
      {
        notation: "13/10(2) 6/3(2)",
        steps: [
          [
            [13, 10],
            [13, 10],
            [6, 3],
            [6, 3],
          ],
        ],
      },
    ];
    assert.equal(m.matchNotation(plays, "13/7(2)").play, "13/7(2)");
    assert.equal(m.matchNotation(plays, "13/7 13/7").play, "13/7(2)");
    assert.equal(m.matchNotation(plays, "13/10/7(2)").play, "13/7(2)");
    assert.equal(m.matchNotation(plays, "13/10 13/10 10/7 10/7").play, "13/7(2)");
    assert.equal(m.matchNotation(plays, "6/3(2) 13/10(2)").play, "13/10(2) 6/3(2)");
    assert.equal(m.matchNotation(plays, "13/7").play, null);
    assert.equal(m.matchNotation(plays, "pass").play, null);
    assert.equal(m.matchNotation([{ notation: "", steps: [[]] }], "no move").play, "");
    assert.equal(m.matchNotation([{ notation: "", steps: [[]] }], "").play, "");
  });

  it("matches plays sent without routes by their spelling", () => {
    const plays = [{ notation: "bar/22 6/off" }, { notation: "bar/20 6/off" }];
    assert.equal(m.matchNotation(plays, "25/22 6/0").play, "bar/22 6/off");
    assert.equal(m.matchNotation(plays, "6/off bar/20").play, "bar/20 6/off");
    assert.equal(m.matchNotation(plays, "bar/21 6/off").play, null);
  });
});

describe("the server's tree of steps", () => {
  // FIVE_TWO as the server sends it: node 0 the start, each step [from, to, hits, next], next
  // 0 the end of a play; after 13/8, node 1 (13/11, 8/6 or 6/4); after 13/11, node 2 (11/6:
  // 13/11 13/8 is already the path through node 1, its steps highest first).
  const tree = [
    [
      [24, 22, false, 3],
      [13, 11, false, 2],
      [13, 8, false, 1],
      [8, 3, false, 4],
    ],
    [
      [13, 11, false, 0],
      [8, 6, false, 0],
      [6, 4, false, 0],
    ],
    [[11, 6, false, 0]],
    [[13, 8, false, 0]],
    [[6, 4, false, 0]],
  ];

  it("holds the same plays as the list, named by their notation", () => {
    assert.deepEqual(m.remainingPlays(tree, []).sort(), FIVE_TWO.map((p) => p.notation).sort());
    assert.equal(m.playCount(tree), 5);
    assert.equal(m.onlyPlay(tree), null);
    assert.equal(m.cannotMove(tree), false);
    assert.equal(m.cannotMove([[]]), true);
    assert.equal(m.playCount([[]]), 0);
    assert.equal(m.onlyPlay([[[24, 23, false, 0]]]), "24/23");
  });

  it("walks the tree as the list: sources, destinations, completion", () => {
    // (Between two paths of one checker to one point, either may be the one offered.)
    const where = (ds) => ds.map((d) => [d.to, d.steps.length, d.hits]);
    for (const made of [[], [[13, 8]], [[6, 4]], [[13, 11]], [[8, 6]]]) {
      assert.deepEqual(m.sources(tree, start, made), m.sources(FIVE_TWO, start, made), `${made}`);
      for (const from of m.sources(tree, start, made)) {
        assert.deepEqual(where(m.destinations(tree, start, made, from)), where(m.destinations(FIVE_TWO, start, made, from)));
      }
    }
    assert.deepEqual(m.stepsTo(tree, start, [], 13, 6), [
      [13, 11],
      [11, 6],
    ]);
    // Either order of one play's steps makes it (8/6 before 13/8: a checker stands on 8).
    assert.equal(m.completed(tree, [[8, 6], [13, 8]]), "13/6");
    assert.equal(m.completed(tree, [[13, 11], [11, 6]]), "13/6");
    assert.equal(m.completed(tree, [[13, 8]]), null);
    assert.equal(m.completed(tree, [[13, 8], [13, 11]]), "13/11 13/8");
    assert.deepEqual(m.remainingPlays(tree, [[24, 22]]), ["24/22 13/8"]);
    assert.deepEqual(m.undo([[24, 22], [13, 8]]), [[24, 22]]);
  });

  it("gives the moves to send: one route of the play, in the tree's order", () => {
    assert.deepEqual(m.playMoves(tree, "13/6"), [
      [13, 11],
      [11, 6],
    ]);
    assert.deepEqual(m.playMoves(tree, "8/3 6/4"), [
      [8, 3],
      [6, 4],
    ]);
    assert.equal(m.playMoves(tree, "13/7"), null);
  });

  it("writes a route's notation as the server writes its play", () => {
    const s = (from, to, hit = false) => ({ from, to, hit });
    assert.equal(m.routeNotation([s(24, 18), s(18, 13)]), "24/13");
    assert.equal(m.routeNotation([s(24, 18, true), s(18, 13)]), "24/18*/13");
    assert.equal(m.routeNotation([s(6, 5, true), s(8, 5)]), "8/5* 6/5");
    assert.equal(m.routeNotation([s(13, 10), s(13, 10), s(10, 7), s(10, 7)]), "13/7(2)");
    assert.equal(m.routeNotation([s(8, 5, true), s(8, 5), s(5, 2), s(6, 3)]), "8/5*/2 8/5 6/3");
    assert.equal(m.routeNotation([s(25, 22), s(6, 0)]), "bar/22 6/off");
    assert.equal(m.routeNotation([]), "");
  });

  it("refuses what is not a tree of steps", () => {
    for (const bad of [
      [[[13, 8, false]]], // no next
      [[[13, 8, false, 5]]], // no node 5
      [[[13, 8, false, -1]]],
      [[[13, 8, "no", 0]]],
      [[[13, 8, false, 0.5]]],
      [[[6, 5, false, 1]], [[5, 4, false, 1]]], // a loop
    ]) {
      assert.throws(() => m.sources(bad, start, []), TypeError, JSON.stringify(bad));
    }
  });
});

// Provably fair dice, checked in the browser (docs/dice.md, events/domain/dice.py).
//
//   commitment = hex(SHA-256(seed))
//   key        = HMAC-SHA256(key = seed,
//                            message = "chouette-dice/v1/key" || SHA-256(c1) || SHA-256(c2) ...)
//   block(n,k) = HMAC-SHA256(key, "chouette-dice/v1/" || decimal(n) || "/" || decimal(k))
//   die(n)     = b mod 6 + 1, for the first byte b < 252 of block(n,0), block(n,1), ...
//
// c1, c2... are the players' seeds (UTF-8) in the order of their client_seed_added events. n
// counts the game's dice from 0 in the order they were thrown, across every throw event of the
// game: a chouette's first game first throws for the line (line_throw: one die per player still
// tied, in the event's order, counters 0..n-1; ties throw again), then the opening throw (two
// dice: the box's then the captain's, or seat 0's then seat 1's; a tie throws again), then each
// roll (two dice, in the order recorded).
//
// The hashes are Web Crypto's (globalThis.crypto.subtle) where there is one: browsers in a secure
// context (HTTPS, or localhost) and Node >= 19. Elsewhere, a page served over plain HTTP by a
// host name above all, they are sha256.js's, in plain JavaScript: the same bytes either way, and
// never a check given up (or, worse, failed) for want of an API.
//
// A check that could not be computed at all (an error of the hashing itself) is never reported
// as a failed one: verifyEvents gives the game the status "unchecked", with the reason.

import { hmacSha256Signer, sha256 as sha256Js } from "./sha256.js";

export const DOMAIN = "chouette-dice/v1/";
export const KEY_LABEL = `${DOMAIN}key`;

const utf8 = new TextEncoder();

/** Web Crypto's SubtleCrypto, or null where there is none (an insecure context). Asked for at
 * each use, so that a test may take it away. */
function subtle() {
  return globalThis.crypto?.subtle ?? null;
}

/** Which implementation the hashes are computed with here: "web-crypto" (the platform's) or
 * "javascript" (sha256.js, where there is no crypto.subtle). */
export function hashImplementation() {
  return subtle() ? "web-crypto" : "javascript";
}

/** Bytes from hex (any case); throws on anything else. */
export function hexToBytes(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new TypeError("not a hex string");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Lower-case hex of bytes. */
export function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function sha256(bytes) {
  const s = subtle();
  return s ? new Uint8Array(await s.digest("SHA-256", bytes)) : sha256Js(bytes);
}

/** An HMAC-SHA-256 key: an async `sign(message)` giving the MAC's bytes. */
async function hmacKey(raw) {
  const s = subtle();
  if (!s) {
    const sign = hmacSha256Signer(raw);
    return async (message) => sign(message);
  }
  const key = await s.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return async (message) => new Uint8Array(await s.sign("HMAC", key, message));
}

async function hmac(key, message) {
  return key(message);
}

/** The commitment to a seed (hex in, hex out): SHA-256. */
export async function commitmentOf(seedHex) {
  return bytesToHex(await sha256(hexToBytes(seedHex)));
}

/**
 * Whether a revealed seed is the one committed to: false for a computed mismatch, and for a
 * seed that is not hex or a commitment that is not a string (no bytes hash to it), as
 * events/domain/dice.py's `verify` answers. Rejects, rather than answering false, when the
 * hash itself could not be computed: that is no evidence against the seed.
 */
export async function checkCommitment(seedHex, commitmentHex) {
  if (typeof commitmentHex !== "string") return false;
  let seed;
  try {
    seed = hexToBytes(seedHex);
  } catch {
    return false;
  }
  // Exactly as events/domain/dice.py compares: the lower-case hex the server publishes.
  return bytesToHex(await sha256(seed)) === commitmentHex;
}

/** The game's HMAC key, raw bytes: the seed with the players' seeds mixed in. */
export async function gameKey(seedHex, clientSeeds = []) {
  const seed = hexToBytes(seedHex);
  if (seed.length === 0) throw new TypeError("an empty seed");
  const hashes = await Promise.all(clientSeeds.map((s) => sha256(utf8.encode(String(s)))));
  return hmac(await hmacKey(seed), concat([utf8.encode(KEY_LABEL), ...hashes]));
}

/** A deriver of dice for one key: `die(n)` is the game's n-th die, 1..6. */
export async function diceOf(keyBytes) {
  const key = await hmacKey(keyBytes);
  return async function die(counter) {
    if (!Number.isInteger(counter) || counter < 0) throw new RangeError(`counter ${counter}`);
    for (let block = 0; ; block++) {
      const digest = await hmac(key, utf8.encode(`${DOMAIN}${counter}/${block}`));
      const b = digest.find((x) => x < 252);
      if (b !== undefined) return (b % 6) + 1;
    }
  };
}

/** `count` dice of a game from counter `start`. */
export async function deriveDice(seedHex, clientSeeds = [], count = 2, start = 0) {
  const die = await diceOf(await gameKey(seedHex, clientSeeds));
  const out = [];
  for (let n = start; n < start + count; n++) out.push(await die(n));
  return out;
}

/**
 * Check one game: the revealed seed against the commitment, then every recorded die against
 * the one the seed derives. Rejects when a hash could not be computed (never a false `ok`).
 *
 * @param {{commitment: string, seed: string, clientSeeds?: string[],
 *   throws: Array<number[]|number>}} game `throws` in the order of the dice counter (each an
 *   event's dice, or single dice; they are flattened)
 * @returns {Promise<{ok: boolean, commitmentOk: boolean, checked: number,
 *   firstMismatch: null | {counter: number, throw: number, index: number, recorded: number,
 *   expected: number}}>} `firstMismatch` names the first die that differs: its counter, which
 *   throw and which die of it.
 */
export async function verifyGame({ commitment, seed, clientSeeds = [], throws }) {
  const commitmentOk = await checkCommitment(seed, commitment);
  if (!commitmentOk) return { ok: false, commitmentOk, checked: 0, firstMismatch: null };
  const die = await diceOf(await gameKey(seed, clientSeeds));
  let counter = 0;
  for (const [t, thrown] of throws.entries()) {
    const dice = Array.isArray(thrown) ? thrown : [thrown];
    for (const [index, recorded] of dice.entries()) {
      const expected = await die(counter);
      if (recorded !== expected) {
        return {
          ok: false,
          commitmentOk,
          checked: counter + 1,
          firstMismatch: { counter, throw: t, index, recorded, expected },
        };
      }
      counter += 1;
    }
  }
  return { ok: true, commitmentOk, checked: counter, firstMismatch: null };
}

function typeOf(message) {
  return message.t ?? message.type;
}

function dataOf(message) {
  return message.d ?? message.data ?? message;
}

/** A line_throw's dice in the order thrown: `throws` is an object {player: die} (in the order
 * of its keys, as sent) or a list of [player, die] pairs or {player, die} objects. */
export function lineThrowDice(throws) {
  if (Array.isArray(throws)) {
    return throws.map((t) => (Array.isArray(t) ? t[1] : t.die));
  }
  return Object.values(throws);
}

/**
 * Each game's dice record from a table's events, in version order. Takes stream messages
 * `{v, t, d}`, replay events `{type, data}` or bare events `{type, ...}`.
 *
 * @returns {Array<{game: number, commitment: string, clientSeeds: string[],
 *   throws: Array<{version: number|null, type: string, dice: number[]}>, seed: string,
 *   ended: boolean}>} `seed` is "" until the game ends.
 */
export function gamesFromEvents(events) {
  const games = [];
  const byNumber = new Map();
  let current = null;
  for (const message of events) {
    const type = typeOf(message);
    const d = dataOf(message);
    const version = message.v ?? null;
    switch (type) {
      case "game_started":
        current = {
          game: d.game,
          commitment: d.dice_commitment ?? "",
          clientSeeds: [],
          throws: [],
          seed: "",
          ended: false,
        };
        games.push(current);
        byNumber.set(d.game, current);
        break;
      case "client_seed_added":
        byNumber.get(d.game)?.clientSeeds.push(d.seed);
        break;
      case "line_throw":
        current?.throws.push({ version, type, dice: lineThrowDice(d.throws) });
        break;
      case "opening_throw":
      case "dice_rolled":
        current?.throws.push({ version, type, dice: [...d.dice] });
        break;
      case "game_ended": {
        const game = byNumber.get(d.game);
        if (game) {
          game.seed = d.seed ?? "";
          game.ended = true;
        }
        break;
      }
      default:
        break;
    }
  }
  return games;
}

/**
 * Verify every game of a table's events. A game in play keeps its seed secret (`pending`); a
 * game with neither commitment nor seed (imported from a file) cannot be checked
 * (`uncommitted`); a game whose check could not be computed (the hashing threw) is
 * `unchecked`, with the `reason`; any other game is `ok` or `failed`, and `failed` only for a
 * computed mismatch.
 *
 * @returns {Promise<Array<{game: number,
 *   status: "ok"|"failed"|"pending"|"uncommitted"|"unchecked", ok: boolean,
 *   commitmentOk: boolean, checked: number, firstMismatch: object|null, version: number|null,
 *   reason?: string}>>} `version` is the stream version of the throw that differs, when the
 *   events carried versions.
 */
export async function verifyEvents(events) {
  const out = [];
  for (const g of gamesFromEvents(events)) {
    const base = { game: g.game, ok: false, commitmentOk: false, checked: 0, firstMismatch: null };
    if (!g.ended) {
      out.push({ ...base, status: "pending", version: null });
      continue;
    }
    if (!g.commitment && !g.seed) {
      out.push({ ...base, status: "uncommitted", version: null });
      continue;
    }
    let result;
    try {
      result = await verifyGame({
        commitment: g.commitment,
        seed: g.seed,
        clientSeeds: g.clientSeeds,
        throws: g.throws.map((t) => t.dice),
      });
    } catch (err) {
      const reason = `the check could not be computed here: ${err?.message ?? err}`;
      out.push({ ...base, status: "unchecked", version: null, reason });
      continue;
    }
    const bad = result.firstMismatch;
    out.push({
      game: g.game,
      status: result.ok ? "ok" : "failed",
      ...result,
      version: bad ? g.throws[bad.throw].version : null,
    });
  }
  return out;
}

// The page's own SHA-256 and HMAC-SHA-256 (server/static/fair/sha256.js, what dice.js computes with
// where there is no Web Crypto): the FIPS 180-2 examples, the RFC 4231 test cases, and every
// message length around the padding's block boundaries against Node's (OpenSSL's) hashes.

import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { describe, it } from "node:test";

import { hmacSha256, hmacSha256Signer, sha256 } from "../../server/static/fair/sha256.js";

const ascii = (text) => new TextEncoder().encode(text);
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const unhex = (text) => new Uint8Array(Buffer.from(text, "hex"));
const repeat = (byte, n) => new Uint8Array(n).fill(byte);
/** Bytes that are not all alike, for the comparisons with Node (deterministic). */
const varied = (n, salt = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + salt * 7 + 17) & 0xff);

describe("SHA-256", () => {
  // FIPS 180-2, appendix B (and the empty message, from the same standard's definition).
  const examples = [
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    [
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ],
  ];

  for (const [message, digest] of examples) {
    it(`hashes ${JSON.stringify(message.slice(0, 12))} (${message.length} bytes)`, () => {
      assert.equal(hex(sha256(ascii(message))), digest);
    });
  }

  it("hashes a million times 'a'", () => {
    const digest = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    assert.equal(hex(sha256(repeat(0x61, 1_000_000))), digest);
  });

  it("agrees with Node at every length from 0 to 300 bytes (each padding case)", () => {
    for (let n = 0; n <= 300; n++) {
      const message = varied(n);
      assert.equal(hex(sha256(message)), createHash("sha256").update(message).digest("hex"), `${n} bytes`);
    }
  });

  it("takes an ArrayBuffer or any view, and only the view's bytes", () => {
    const abc = ascii("xxabcxx");
    const want = hex(sha256(ascii("abc")));
    assert.equal(hex(sha256(abc.subarray(2, 5))), want);
    assert.equal(hex(sha256(new DataView(abc.buffer, 2, 3))), want);
    assert.equal(hex(sha256(ascii("abc").buffer)), want);
    assert.equal(sha256(ascii("abc")).length, 32);
  });

  it("refuses what is not bytes (a string must be encoded first)", () => {
    for (const bad of ["abc", 12, null, undefined, [1, 2, 3]]) {
      assert.throws(() => sha256(bad), TypeError, String(bad));
    }
  });

  it("leaves its input as it was", () => {
    const message = varied(70);
    const copy = message.slice();
    sha256(message);
    assert.deepEqual(message, copy);
  });
});

describe("HMAC-SHA-256", () => {
  // RFC 4231, section 4: test cases 1 to 7 (case 5's MAC is truncated to 128 bits).
  const cases = [
    [repeat(0x0b, 20), ascii("Hi There"), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"],
    [ascii("Jefe"), ascii("what do ya want for nothing?"), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"],
    [repeat(0xaa, 20), repeat(0xdd, 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"],
    [
      unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
      repeat(0xcd, 50),
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
    ],
    [repeat(0x0c, 20), ascii("Test With Truncation"), "a3b6167473100ee06e0c796c2955552b"],
    [
      repeat(0xaa, 131),
      ascii("Test Using Larger Than Block-Size Key - Hash Key First"),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ],
    [
      repeat(0xaa, 131),
      ascii(
        "This is a test using a larger than block-size key and a larger than block-size data. " +
          "The key needs to be hashed before being used by the HMAC algorithm.",
      ),
      "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
    ],
  ];

  for (const [i, [key, data, mac]] of cases.entries()) {
    it(`passes RFC 4231 test case ${i + 1}`, () => {
      assert.equal(hex(hmacSha256(key, data)).slice(0, mac.length), mac);
    });
  }

  it("agrees with Node for keys shorter than, as long as and longer than a block", () => {
    for (const keyLength of [0, 1, 31, 32, 63, 64, 65, 100, 128, 200]) {
      const key = varied(keyLength, 1);
      const sign = hmacSha256Signer(key);
      for (const n of [0, 1, 20, 55, 56, 63, 64, 65, 119, 120, 150]) {
        const message = varied(n, 2);
        const want = createHmac("sha256", key).update(message).digest("hex");
        assert.equal(hex(sign(message)), want, `key ${keyLength}, message ${n}`);
        assert.equal(hex(hmacSha256(key, message)), want, `key ${keyLength}, message ${n}`);
      }
    }
  });

  it("signs again and again with one signer, each MAC its message's alone", () => {
    const sign = hmacSha256Signer(ascii("key"));
    const first = hex(sign(ascii("chouette-dice/v1/0/0")));
    assert.notEqual(hex(sign(ascii("chouette-dice/v1/1/0"))), first);
    assert.equal(hex(sign(ascii("chouette-dice/v1/0/0"))), first);
  });
});

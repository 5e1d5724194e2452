// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) in plain JavaScript, with no dependency.
//
// dice.js uses these where the browser offers no Web Crypto: `crypto.subtle` exists only in a
// secure context (HTTPS, or localhost), so a server reached over plain HTTP by its name would
// otherwise leave the page unable to check its dice. Synchronous, on bytes (Uint8Array, any
// other ArrayBuffer view, or an ArrayBuffer); strings must be encoded by the caller (UTF-8).
// Speed is no concern here: a game's check hashes a few kilobytes.

/** The first `n` primes. */
function primes(n) {
  const out = [];
  for (let c = 2; out.length < n; c++) if (out.every((p) => c % p !== 0)) out.push(c);
  return out;
}

/** The first 32 bits of the fractional part of a positive number. */
function fraction32(x) {
  return ((x - Math.floor(x)) * 2 ** 32) >>> 0;
}

const PRIMES = primes(64);
// FIPS 180-4 §4.2.2 and §5.3.3 define the constants this way, rather than as a table to copy:
// the round constants from the cube roots of the first 64 primes, the initial hash value from
// the square roots of the first 8. (A double's 53 bits hold each to well below a unit of 2^-32;
// the test vectors check every one of them.)
const K = Uint32Array.from(PRIMES, (p) => fraction32(Math.cbrt(p)));
const H0 = Uint32Array.from(PRIMES.slice(0, 8), (p) => fraction32(Math.sqrt(p)));

/** The block size of SHA-256, in bytes (HMAC pads its key to it). */
export const BLOCK_BYTES = 64;
/** The length of a SHA-256 digest, in bytes. */
export const DIGEST_BYTES = 32;

/** Bytes of what is given: a Uint8Array as it is, another view or an ArrayBuffer as bytes. */
function bytesOf(data) {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError("SHA-256 takes bytes (a Uint8Array, an ArrayBuffer or a view of one)");
}

function rotr(x, n) {
  return (x >>> n) | (x << (32 - n));
}

const W = new Uint32Array(64);

/** One block of 64 bytes from `at` into the running hash `h` (8 words, updated in place). */
function compress(h, bytes, at) {
  for (let t = 0; t < 16; t++) {
    const i = at + 4 * t;
    W[t] = (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
  }
  for (let t = 16; t < 64; t++) {
    const a = W[t - 15];
    const b = W[t - 2];
    const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
    const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
    W[t] = W[t - 16] + s0 + W[t - 7] + s1; // a Uint32Array keeps the sum modulo 2^32
  }
  let [a, b, c, d, e, f, g, hh] = h;
  for (let t = 0; t < 64; t++) {
    const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = (hh + S1 + ch + K[t] + W[t]) | 0;
    const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

/** SHA-256 of some bytes: 32 bytes. */
export function sha256(data) {
  const message = bytesOf(data);
  const length = message.length;
  // The message, the bit 1, zeros, then its length in bits as 64 bits big-endian (§5.1.1).
  const padded = new Uint8Array(Math.ceil((length + 9) / BLOCK_BYTES) * BLOCK_BYTES);
  padded.set(message);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 2 ** 29));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  const h = Uint32Array.from(H0);
  for (let at = 0; at < padded.length; at += BLOCK_BYTES) compress(h, padded, at);
  const out = new Uint8Array(DIGEST_BYTES);
  const digest = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) digest.setUint32(4 * i, h[i]);
  return out;
}

/**
 * An HMAC-SHA-256 signer for one key: `sign(message)` is the 32-byte MAC. The key is padded
 * (or first hashed, when longer than a block) once, here.
 */
export function hmacSha256Signer(key) {
  let k = bytesOf(key);
  if (k.length > BLOCK_BYTES) k = sha256(k);
  const inner = new Uint8Array(BLOCK_BYTES).fill(0x36);
  const outer = new Uint8Array(BLOCK_BYTES).fill(0x5c);
  for (const [i, byte] of k.entries()) {
    inner[i] ^= byte;
    outer[i] ^= byte;
  }
  return function sign(message) {
    const m = bytesOf(message);
    const first = new Uint8Array(BLOCK_BYTES + m.length);
    first.set(inner);
    first.set(m, BLOCK_BYTES);
    const second = new Uint8Array(BLOCK_BYTES + DIGEST_BYTES);
    second.set(outer);
    second.set(sha256(first), BLOCK_BYTES);
    return sha256(second);
  };
}

/** HMAC-SHA-256 of a message under a key: 32 bytes. */
export function hmacSha256(key, message) {
  return hmacSha256Signer(key)(message);
}

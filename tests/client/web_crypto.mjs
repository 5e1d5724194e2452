// Which hashing the client's dice tests run with (not a test file: no `.test.` in its name).
//
// CHOUETTE_WEB_CRYPTO unset or "on": Node's Web Crypto, as a browser has it in a secure context
// (HTTPS, or localhost). "off": a `crypto` with no `subtle`, as a browser has it on a page served
// over plain HTTP by a host name, so that dice.js computes its hashes with sha256.js.

/** Set `globalThis.crypto` up as CHOUETTE_WEB_CRYPTO says; returns the implementation dice.js
 * must then report (its `hashImplementation()`). */
export async function setUpCrypto() {
  const mode = process.env.CHOUETTE_WEB_CRYPTO || "on";
  const { webcrypto } = await import("node:crypto");
  if (mode === "off") {
    const insecure = { getRandomValues: (array) => webcrypto.getRandomValues(array) };
    Object.defineProperty(globalThis, "crypto", { value: insecure, configurable: true, writable: true });
    return "javascript";
  }
  if (mode !== "on") throw new Error(`CHOUETTE_WEB_CRYPTO is "on" or "off", not ${JSON.stringify(mode)}`);
  if (!globalThis.crypto?.subtle) {
    Object.defineProperty(globalThis, "crypto", { value: webcrypto, configurable: true, writable: true });
  }
  return "web-crypto";
}

/** Run `body` with a `crypto.subtle` whose every operation rejects (a platform whose Web Crypto
 * is broken), then put the real one back. */
export async function withBrokenWebCrypto(body) {
  const before = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  const fail = () => Promise.reject(new Error("this platform's SHA-256 is out of order"));
  const broken = { subtle: { digest: fail, importKey: fail, sign: fail } };
  Object.defineProperty(globalThis, "crypto", { value: broken, configurable: true, writable: true });
  try {
    return await body();
  } finally {
    Object.defineProperty(globalThis, "crypto", before);
  }
}

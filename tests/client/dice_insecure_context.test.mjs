// dice.test.mjs again, in a context without Web Crypto (a page served over plain HTTP by a host
// name has `crypto` but no `crypto.subtle`): every derivation through sha256.js instead.

process.env.CHOUETTE_WEB_CRYPTO = "off";
await import("./dice.test.mjs");

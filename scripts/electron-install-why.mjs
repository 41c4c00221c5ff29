// Loaded into the electron package's own installer (`node --import this install.js`, by
// scripts/get-electron.mjs) so that a failed download says why: Node's fetch fails with
// "fetch failed" and keeps the reason ("getaddrinfo ENOTFOUND github.com", "connect
// ECONNREFUSED …", a connect timeout) in its cause, which the installer does not print.
const fetchFirst = globalThis.fetch;
globalThis.fetch = async function fetchSayingWhy(...args) {
  try {
    return await fetchFirst(...args);
  } catch (err) {
    const cause = err && typeof err === 'object' ? err.cause : undefined;
    if (cause && typeof cause === 'object' && typeof cause.message === 'string' && cause.message) {
      const code = typeof cause.code === 'string' && !cause.message.includes(cause.code) ? `${cause.code}: ` : '';
      throw new Error(`${code}${cause.message}`, { cause: err });
    }
    throw err;
  }
};

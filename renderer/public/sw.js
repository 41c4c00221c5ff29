// The phone's service worker (the device door's page): keeps the page's shell (the page, its
// scripts, styles and icons) so it opens at once and offline says so instead of failing.
// Never the device contract (/api/, /ws): the inbox is always asked of the service.
const CACHE = 'td-phone-shell-v1';
const SHELL = ['/', '/manifest.webmanifest', '/icon.svg', '/icon-256.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)))).then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.startsWith('/api/') || url.pathname === '/ws') return;
  // Network first (a new build shows at once), the cached shell when the service is out of reach.
  event.respondWith(
    fetch(event.request).then((res) => {
      if (res.ok) {
        const copy = res.clone();
        void caches.open(CACHE).then((c) => c.put(url.pathname === '/pair' ? '/' : event.request, copy));
      }
      return res;
    }).catch(() => caches.match(event.request).then((hit) => hit || caches.match('/'))),
  );
});

// Web Push (main/devices/push.ts): a card that asks shows as a notification whose actions
// carry single-use tokens; a card answered elsewhere (or changed) is withdrawn by its tag and
// id. The notification work runs one piece at a time: a withdrawal's look for its tag must not
// find (and close) a newer push of the same card shown meanwhile, and no look may run while a
// notification is being shown (Chromium's getNotifications() deletes from its database every
// stored notification the platform does not yet report as displayed, so a look begun between
// the write and the display loses that notification for every later look).
let notifying = Promise.resolve();
const inTurn = (work) => {
  const done = notifying.then(work, work);
  notifying = done.catch(() => undefined);
  return done;
};

self.addEventListener('push', (event) => {
  let m;
  try {
    m = event.data ? event.data.json() : undefined;
  } catch {
    m = undefined;
  }
  if (!m) return;
  if (m.t === 'withdraw') {
    // Only the push it names (a withdrawal that arrives after the card's newer push leaves that one
    // shown); one shown from a push that named no id (an older service's) is older than any that did.
    event.waitUntil(inTurn(() => self.registration.getNotifications({ tag: m.tag }).then((ns) => ns.forEach((n) => {
      const id = n.data && n.data.id;
      if (!m.id || !id || id === m.id) n.close();
    }))));
    return;
  }
  if (m.t === 'note') {
    // An agent done, a command failed: no answers, a tap opens the page.
    event.waitUntil(inTurn(() => self.registration.showNotification(m.title, { body: m.body, tag: m.tag, icon: '/icon-256.png' })));
    return;
  }
  if (m.t !== 'card') return;
  event.waitUntil(inTurn(() => self.registration.showNotification(m.title, {
    body: m.body,
    tag: m.tag,
    renotify: true,
    requireInteraction: true,
    icon: '/icon-256.png',
    actions: (m.actions || []).map((a) => ({ action: a.action, title: a.title })),
    data: { id: m.id, actions: m.actions || [] },
  })));
});

self.addEventListener('notificationclick', (event) => {
  const n = event.notification;
  const chosen = (n.data && n.data.actions || []).find((a) => a.action === event.action);
  n.close();
  if (!chosen) {
    // The notification itself: open the inbox.
    event.waitUntil(self.clients.matchAll({ type: 'window' }).then((cs) => (cs[0] ? cs[0].focus() : self.clients.openWindow('/'))));
    return;
  }
  event.waitUntil(
    fetch('/api/push/act', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: chosen.token }) })
      .then((r) => r.json())
      .then(
        (r) => (r.ok ? undefined : inTurn(() => self.registration.showNotification('Not sent', { body: r.error, tag: `${n.tag}-refused` }))),
        () => inTurn(() => self.registration.showNotification('Not sent', { body: 'The service could not be reached: nothing was sent.', tag: `${n.tag}-refused` })),
      ),
  );
});

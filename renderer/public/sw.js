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

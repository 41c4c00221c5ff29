/**
 * The phone's page, served by the device door (main/devices/door.ts): laid out for a
 * 390×844 touch screen. `?theme=light|dark` forces a theme (screenshots); otherwise the
 * phone's own.
 */
import '@xterm/xterm/css/xterm.css';
import '../theme.css';
import './phone.css';
import { createRoot } from 'react-dom/client';
import { PhoneApp } from './PhoneApp.tsx';

const theme = new URLSearchParams(location.search).get('theme');
const media = window.matchMedia('(prefers-color-scheme: light)');
const apply = (): void => {
  document.documentElement.dataset.theme = theme === 'light' || theme === 'dark' ? theme : media.matches ? 'light' : 'dark';
};
apply();
media.addEventListener('change', apply);

// The shell is kept for offline starts; a browser that refuses it (an untrusted certificate) simply has none.
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);

// The secret of a scanned QR code is in the fragment (never sent to a server); taken, then wiped from the address bar.
const secret = location.pathname === '/pair' && /^#[0-9a-f]{32}$/i.test(location.hash) ? location.hash.slice(1) : undefined;
if (location.pathname === '/pair') history.replaceState(null, '', `/${location.search}`);

createRoot(document.getElementById('root')!).render(<PhoneApp secret={secret} />);

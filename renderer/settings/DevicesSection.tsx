/**
 * Settings → Phone and other devices (docs/spec/devices.md): the device door on or off at an
 * address of this machine, its certificate's fingerprint, Pair a device (the QR code and the
 * code, while the section shows), and the paired devices with Revoke.
 */
import { useEffect, useRef, useState, type ReactElement } from 'react';
import type { DevicePairing, DevicesState } from '../../preload/contract.ts';
import { parseAddress } from '../../common/device-address.ts';
import { useWindow } from '../context.ts';

export function DevicesSection(): ReactElement {
  const ctx = useWindow();
  const [state, setState] = useState<DevicesState | undefined>();
  const [address, setAddress] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [pairing, setPairing] = useState<DevicePairing | undefined>();
  const qr = useRef<HTMLDivElement>(null);
  // The QR code in view as it appears (the section is at the foot of a scrolling screen).
  useEffect(() => {
    if (pairing) qr.current?.scrollIntoView({ block: 'nearest' });
  }, [pairing]);

  useEffect(() => {
    void ctx.api.invoke('devices.state', {}).then(setState, (e: Error) => setError(e.message));
    return ctx.api.on('devices.changed', setState);
  }, [ctx]);
  // Closing the settings ends a pairing that is still open.
  useEffect(() => () => {
    if (pairing) void ctx.api.invoke('devices.pairEnd', {}).catch(() => undefined);
  }, [ctx, pairing]);

  const run = async (f: () => Promise<void>): Promise<void> => {
    setError(undefined);
    try {
      await f();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const turnOn = (): Promise<void> => run(async () => {
    const a = parseAddress(address);
    if (typeof a === 'string') return setError(a);
    const r = await ctx.api.invoke('devices.enable', a);
    if (!r.ok) return setError(r.error);
    setState(r.state);
  });
  const turnOff = (): Promise<void> => run(async () => {
    setPairing(undefined);
    setState(await ctx.api.invoke('devices.disable', {}));
  });
  const pair = (): Promise<void> => run(async () => {
    const r = await ctx.api.invoke('devices.pair', {});
    if (!r.ok) return setError(r.error);
    setPairing(r.pairing);
  });
  const revoke = (name: string): Promise<void> => run(async () => {
    const r = await ctx.api.invoke('devices.revoke', { name });
    if (!r.ok) setError(r.error);
  });

  const p = state?.pairing;
  const open = pairing && p?.open;
  return (
    <fieldset className="settings-group devices" data-setting="devices">
      <legend>Phone and other devices</legend>
      {!state ? <p className="hint">Loading…</p> : !state.on ? (
        <div className="settings-field">
          <label htmlFor="devices-address">Device door</label>
          <div className="devices-row">
            <input id="devices-address" type="text" className="is-mono" placeholder="100.101.102.103:8443" value={address} spellCheck={false} autoComplete="off" aria-describedby="devices-help" onChange={(e) => setAddress(e.target.value)} onKeyDown={(e) => { if (e.key === 'Enter') void turnOn(); }} />
            <button type="button" className="text-button primary" onClick={() => void turnOn()}>Turn on</button>
          </div>
          <p id="devices-help" className="hint">Off. Answer your agents from your phone: an HTTPS door on one address of this machine (a LAN or tailnet address; 127.0.0.1 for a tunnel of your own), port 8443 unless given. {state.problem ? `Not open: ${state.problem}` : ''}</p>
        </div>
      ) : (
        <>
          <div className="settings-field">
            <span>Device door</span>
            <div className="devices-row">
              <code className="devices-url">{state.url}</code>
              <button type="button" className="text-button" onClick={() => void turnOff()}>Turn off</button>
            </div>
            <p className="hint">Certificate SHA-256 <code className="devices-fp">{state.fingerprint}</code>{state.certMade ? '. Made by the app: a phone warns until you check this fingerprint, and push notifications need a trusted certificate (tailscale cert, mkcert): terminal-delight devices on --cert F --key F.' : '.'}</p>
          </div>
          <div className="devices-pair">
            {open ? (
              <div ref={qr} className="devices-qr" aria-label="Pairing">
                <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(pairing.qrSvg)}`} alt="QR code of the device door's pairing address" width={168} height={168} />
                <div>
                  <p>Scan with the phone's camera, or open <code>{pairing.url.replace(/#.*$/, '')}</code> and type</p>
                  <p className="devices-code" aria-label="Pairing code">{pairing.code.slice(0, 4)} {pairing.code.slice(4)}</p>
                  <p className="hint">Good for 5 minutes and one device; 5 wrong tries end it.</p>
                  <button type="button" className="text-button" onClick={() => void run(async () => { await ctx.api.invoke('devices.pairEnd', {}); setPairing(undefined); })}>Done</button>
                </div>
              </div>
            ) : (
              <>
                <button type="button" className="text-button primary" onClick={() => void pair()}>Pair a device</button>
                {p && !p.open && pairing ? <span className="hint" role="status">{p.paired ? `Paired ${p.paired}.` : `The pairing ended: ${p.ended}.`}</span> : null}
              </>
            )}
          </div>
          {state.devices.length === 0 ? <p className="hint">No device is paired.</p> : (
            <ul className="devices-list" aria-label="Paired devices">
              {state.devices.map((d) => (
                <li key={d.name}>
                  <span className="devices-name">{d.name}</span>
                  <span className="hint">paired {new Date(d.pairedAt).toLocaleString()} · last seen {d.lastSeen ? new Date(d.lastSeen).toLocaleString() : 'never'}{d.connected ? ' · connected' : ''}{d.push ? ' · notifications' : ''}</span>
                  <label className="settings-toggle devices-type"><input type="checkbox" checked={d.canType} onChange={(e) => void run(async () => { const r = await ctx.api.invoke('devices.allowTyping', { name: d.name, allow: e.target.checked }); if (!r.ok) setError(r.error); })} />May type</label>
                  <button type="button" className="text-button" aria-label={`Revoke ${d.name}`} onClick={() => void revoke(d.name)}>Revoke</button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {error ? <p className="settings-error" role="alert">{error}</p> : null}
    </fieldset>
  );
}

/** Window-level UI state of the service's pieces: the "Quit and end all panes" dialog, and whether the app has quit. */
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';

export interface ServiceUi {
  quitOpen: boolean;
  /** Rises each time the dialog is asked for (a shortcut while it shows refocuses it). */
  quitN: number;
  /** The person quit and ended every pane: the window stops reconnecting and says so. */
  quit: boolean;
  /** The service was stopped on purpose (`service.stopping`, how 'stop'): its sentence, until a hello succeeds again. */
  stopped: string | null;
  /** Rises each time this window asked for the service to start again and it said yes. */
  startedN: number;
}

export const serviceUi = createStore<ServiceUi>()(() => ({ quitOpen: false, quitN: 0, quit: false, stopped: null, startedN: 0 }));

/** Why a button that needs the service does nothing while it is stopped on purpose (its title, and a shortcut's notice). */
export const NEEDS_SERVICE = 'The service is stopped: start it first (Start the service, under the title bar)';

/** Whether the service was stopped on purpose and not started again (a hook, for the buttons that need it). */
export function useStopped(): boolean {
  return useStore(serviceUi, (s) => s.stopped !== null);
}

export function showQuit(): void {
  serviceUi.setState((s) => ({ quitOpen: true, quitN: s.quitN + 1 }));
}

export function hideQuit(): void {
  serviceUi.setState({ quitOpen: false });
}

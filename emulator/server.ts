import { API_PREFIX, buildEmulator, type Emulator, type EmulatorOptions } from './app';

/** Options of {@link startEmulator}: those of the app, and where to listen. */
export interface ServerOptions extends EmulatorOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
}

/** A listening emulator. */
export interface RunningEmulator extends Emulator {
  /** Base address of the API, ending in `/client/v4` (contract). */
  baseUrl: string;
  /** Address of the control API, ending in `/__emulator`. */
  controlUrl: string;
}

/** Builds the emulator and listens; resolves once it accepts connections. */
export async function startEmulator(options: ServerOptions = {}): Promise<RunningEmulator> {
  const emulator = buildEmulator(options);
  try {
    await emulator.app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 8787 });
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const address = emulator.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('emulator: no TCP address after listen');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  return { ...emulator, baseUrl: `${origin}${API_PREFIX}`, controlUrl: `${origin}/__emulator` };
}

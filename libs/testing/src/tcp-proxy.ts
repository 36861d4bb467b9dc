/**
 * A TCP relay a test puts between the code under test and a server it does not own (the shared
 * Postgres or NATS), to take that server away without stopping it for anyone else: `cut()`
 * drops every relayed connection and refuses new ones, `restore()` relays again.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A relay to `target` on a port of its own. */
export interface TcpProxy {
  /** The port clients connect to (127.0.0.1). */
  readonly port: number;
  /** Ends every relayed connection and stops listening (clients get ECONNREFUSED). */
  cut(): Promise<void>;
  /**
   * Leaves new connections unanswered (accepted, never relayed) and ends the relayed ones: a
   * server that hangs, as a host that vanished looks to a client.
   */
  blackhole(): Promise<void>;
  /** Relays again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Starts relaying 127.0.0.1:<free port> to `host:port`. */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let mode: 'relay' | 'blackhole' = 'relay';
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const onConnection = (down: Socket) => {
    track(down);
    if (mode === 'blackhole') return;
    const up = connect(targetPort, targetHost);
    track(up);
    down.pipe(up).pipe(down);
    down.on('close', () => up.destroy());
    up.on('close', () => down.destroy());
  };
  let server: Server | undefined;
  const listen = (port: number) => new Promise<number>((resolve, reject) => {
    const s = createServer(onConnection);
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      server = s;
      resolve((s.address() as { port: number }).port);
    });
  });
  const stop = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    if (!server) return resolve();
    server.close(() => resolve());
    server = undefined;
  });
  const port = await listen(0);
  return {
    port,
    cut: stop,
    async blackhole() {
      for (const s of sockets) s.destroy();
      mode = 'blackhole';
      if (!server) await listen(port);
    },
    async restore() {
      mode = 'relay';
      if (!server) await listen(port);
    },
    close: stop,
  };
}

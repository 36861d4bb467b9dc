/**
 * Outages between services: reconnecting to a service that comes back, deadlines that shrink
 * along a chain of calls, and UNAVAILABLE errors that name no internal address.
 */
import { randomUUID } from 'node:crypto';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { contracts, type PkiServiceClient, type PkiServiceHandlers } from '@edge/proto';
import { isZitiError, type ZitiError } from '@edge/errors';
import { silentLogger } from '@edge/logging';
import { createRpcClient, createRpcServer, currentContext, localTarget, stubHandlers, type RpcClient, type RpcServer } from './index.js';

const TLS = { certChainPem: 'c', keyPem: 'k', caBundlePem: 'b' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function pkiServer(handlers: Partial<Parameters<typeof stubHandlers<PkiServiceHandlers>>[0]>, addr = '127.0.0.1:0'): Promise<{ server: RpcServer; port: number }> {
  const server = createRpcServer('pki', silentLogger());
  server.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>(handlers));
  const port = await server.listen(addr);
  server.setServing(true);
  return { server, port };
}

function pkiClient(target: string, deadlineMs = 10_000): RpcClient<PkiServiceClient> {
  const c = createRpcClient(contracts.pki(), target, { deadlineMs });
  cleanup.push(() => c.close());
  return c;
}

const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ZitiError);

describe('a service that comes back', () => {
  it('is used again within about a second by a client that saw it go, however long it was away', async () => {
    const first = await pkiServer({ GetServerTls: async () => TLS });
    const client = pkiClient(`127.0.0.1:${first.port}`);
    await client.getServerTls({});
    first.server.stop(0);
    await sleep(50);
    // Away long enough that grpc-js's default back-off (1 s growing by 1.6) waits seconds more.
    const away = Date.now() + 4_000;
    while (Date.now() < away) {
      expect((await errorOf(client.getServerTls({}, { deadlineMs: 200 })))?.code).toBe('UNAVAILABLE');
      await sleep(300);
    }
    const second = await pkiServer({ GetServerTls: async () => TLS }, `127.0.0.1:${first.port}`);
    cleanup.push(() => second.server.stop(0));
    const back = Date.now();
    // Issued while the client still believes the service is down: it waits for it, within its deadline.
    await client.getServerTls({}, { deadlineMs: 5_000 });
    expect(Date.now() - back).toBeLessThan(1_500);
  }, 15_000);

  it('waits for a service that is down for less than the deadline, instead of failing at once', async () => {
    const first = await pkiServer({ GetServerTls: async () => TLS });
    const client = pkiClient(`127.0.0.1:${first.port}`);
    await client.getServerTls({});
    first.server.stop(0);
    await sleep(100);
    const call = client.getServerTls({}, { deadlineMs: 4_000 });
    await sleep(500);
    const second = await pkiServer({ GetServerTls: async () => TLS }, `127.0.0.1:${first.port}`);
    cleanup.push(() => second.server.stop(0));
    await expect(call).resolves.toMatchObject({ certChainPem: 'c' });
  });
});

describe('keepalive', () => {
  it('lets a client ping an idle connection often without the server ending it', async () => {
    const s = await pkiServer({ GetServerTls: async () => TLS });
    cleanup.push(() => s.server.stop(0));
    // A relay counts the connections the client opens: a GOAWAY would make it open another.
    let connections = 0;
    const sockets: Socket[] = [];
    const relay = createTcpServer((down) => {
      connections++;
      const up = connect(s.port, '127.0.0.1');
      sockets.push(down, up);
      down.pipe(up).pipe(down);
      down.on('error', () => up.destroy());
      up.on('error', () => down.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    cleanup.push(() => { sockets.forEach((x) => x.destroy()); relay.close(); });
    const Ctor = contracts.pki();
    const raw = new Ctor(`127.0.0.1:${(relay.address() as { port: number }).port}`, grpc.credentials.createInsecure(), {
      'grpc.keepalive_time_ms': 100, 'grpc.keepalive_timeout_ms': 1_000, 'grpc.keepalive_permit_without_calls': 1,
    }) as unknown as grpc.Client & Record<string, (...a: unknown[]) => void>;
    cleanup.push(() => raw.close());
    const call = () => new Promise((resolve, reject) => raw.GetServerTls!({}, { deadline: Date.now() + 2_000 }, (err: unknown, res: unknown) => (err ? reject(err) : resolve(res))));
    await call();
    await sleep(1_500); // about fifteen pings on an idle connection
    await call();
    expect(connections).toBe(1);
  });
});

describe('deadlines along a chain of calls', () => {
  it('bounds a nested call by the caller\'s remaining deadline, and asks nothing once the caller gave up', async () => {
    let innerCalls = 0;
    let innerDeadline: number | undefined;
    const inner = await pkiServer({
      GetCaCerts: async (_req, ctx) => {
        innerCalls++;
        innerDeadline = ctx.deadline;
        await sleep(1_000);
        return { pkcs7Base64: '', pem: '' };
      },
    });
    cleanup.push(() => inner.server.stop(0));
    // The middle service's own default deadline is 10 s; its caller allows 300 ms.
    const toInner = pkiClient(`127.0.0.1:${inner.port}`, 10_000);
    let second: ZitiError | undefined;
    let secondDone!: () => void;
    const secondTried = new Promise<void>((r) => { secondDone = r; });
    const middle = await pkiServer({
      GetServerTls: async () => {
        await errorOf(toInner.getCaCerts({}));
        await sleep(150); // past the caller's deadline now
        second = await errorOf(toInner.getCaCerts({}));
        secondDone();
        return TLS;
      },
    });
    cleanup.push(() => middle.server.stop(0));
    const client = pkiClient(`127.0.0.1:${middle.port}`);
    const started = Date.now();
    const err = await errorOf(client.getServerTls({}, { deadlineMs: 300 }));
    expect(err?.code).toBe('UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(innerDeadline).toBeDefined();
    expect(innerDeadline! - started).toBeLessThanOrEqual(300);
    await secondTried;
    expect(second?.code).toBe('UNAVAILABLE');
    expect(innerCalls).toBe(1);
  });

  it('gives a call made outside any request its own deadline', async () => {
    let seen: number | undefined;
    const s = await pkiServer({ GetCaCerts: async () => { seen = currentContext().deadline; return { pkcs7Base64: '', pem: '' }; } });
    cleanup.push(() => s.server.stop(0));
    const started = Date.now();
    await pkiClient(`127.0.0.1:${s.port}`, 2_000).getCaCerts({});
    expect(seen! - started).toBeGreaterThan(1_500);
    expect(seen! - started).toBeLessThanOrEqual(2_100);
  });
});

describe('UNAVAILABLE', () => {
  it('names the service but no address when it cannot be reached', async () => {
    const s = await pkiServer({});
    s.server.stop(0);
    const err = await errorOf(pkiClient(`127.0.0.1:${s.port}`).getServerTls({}, { deadlineMs: 300 }));
    expect(isZitiError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', status: 503, causeMessage: 'the pki service is not available' });
    expect(JSON.stringify({ message: err?.message, causeMessage: err?.causeMessage })).not.toMatch(/127\.0\.0\.1|:\d{4,5}/);
  });

  it('is what a handler\'s lost connection to its own dependency becomes, without its address', async () => {
    const s = await pkiServer({
      GetServerTls: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:4222'), { code: 'ECONNREFUSED' });
      },
    });
    cleanup.push(() => s.server.stop(0));
    const err = await errorOf(pkiClient(`127.0.0.1:${s.port}`).getServerTls({}));
    expect(err).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(JSON.stringify(err)).not.toContain('10.0.0.7');
    expect(err?.causeMessage).not.toContain('10.0.0.7');
  });
});

describe('in-process targets', () => {
  it('binds a port the OS picks, is reached by name, and keeps its port across a restart', async () => {
    const target = localTarget(`pki-${randomUUID()}`);
    const client = pkiClient(target);
    // Not started yet: nothing to call.
    expect((await errorOf(client.getServerTls({})))?.code).toBe('UNAVAILABLE');
    const first = await pkiServer({ GetServerTls: async () => TLS }, target);
    expect(first.port).toBeGreaterThan(0);
    await client.getServerTls({});
    await first.server.stop(0);
    const second = await pkiServer({ GetServerTls: async () => TLS }, target);
    cleanup.push(() => second.server.stop(0));
    expect(second.port).toBe(first.port);
    await client.getServerTls({}, { deadlineMs: 3_000 });
  });
});

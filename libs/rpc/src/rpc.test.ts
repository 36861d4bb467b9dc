import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts, type PkiServiceClient, type PkiServiceHandlers } from '@edge/proto';
import { ZitiError, fieldError, isZitiError } from '@edge/errors';
import { silentLogger } from '@edge/logging';
import { processMetrics } from '@edge/metrics';
import { createRpcClient, createRpcServer, currentContext, isUnimplemented, orOneByOne, runWithContext, stubHandlers, type RpcClient } from './index.js';

let mode = 'ok';
/** Settles once the last slow handler has returned (its call was abandoned long before). */
let slowHandled: Promise<void> = Promise.resolve();
let seen: { requestId?: string; actorId?: string } = {};
const server = createRpcServer('pki', silentLogger());
let client: RpcClient<PkiServiceClient>;

beforeAll(async () => {
  // a stand-in: the RPCs not given here fail when called
  server.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({
    async GetServerTls(_req, ctx) {
      seen = { requestId: ctx.requestId, actorId: ctx.actorId };
      if (mode === 'field') throw fieldError('name', 'must not be empty', '');
      if (mode === 'huge') throw fieldError('typeId', 'must be one of OS, DOMAIN', 'x'.repeat(70_000));
      if (mode === 'bug') throw new Error('secret internal detail');
      if (mode === 'slow') {
        let done!: () => void;
        slowHandled = new Promise((r) => { done = r; });
        await new Promise((r) => setTimeout(r, 500));
        setImmediate(done);
      }
      return { certChainPem: 'c', keyPem: 'k', caBundlePem: 'b' };
    },
    async GetCaCerts() {
      return { pkcs7Base64: currentContext().requestId, pem: '' };
    },
  }));
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  client = createRpcClient(contracts.pki(), `127.0.0.1:${port}`, { deadlineMs: 2000 });
  address = `127.0.0.1:${port}`;
});
let address = '';
afterAll(async () => {
  client.close();
  await server.stop(100);
});

describe('rpc', () => {
  it('tells a method the server does not know (an older version of it), and a batch falls back to single calls on it', async () => {
    // This server serves the pki contract only: to a session client, every method is unknown.
    const older = createRpcClient(contracts.session(), address, { deadlineMs: 2000 });
    try {
      const err = await older.createSessions({ items: [] }).catch((e: unknown) => e);
      expect(isUnimplemented(err)).toBe(true);
      expect(isUnimplemented(await older.getSession({ id: 'x', identityId: '' }).catch((e: unknown) => e))).toBe(true);
      const send = orOneByOne<string, string>(async () => { throw err; }, async (item) => {
        if (item === 'bad') throw fieldError('serviceId', 'is required', '');
        return item.toUpperCase();
      });
      const results = await send(['a', 'bad', 'c']);
      expect(results.slice(0, 1).concat(results.slice(2))).toEqual(['A', 'C']);
      expect(results[1]).toMatchObject({ code: 'COULD_NOT_VALIDATE' });
      // Any other failure of the batch is the batch's.
      const down = orOneByOne<string, string>(async () => { throw fieldError('x', 'bad', ''); }, async (item) => item);
      await expect(down(['a'])).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE' });
      expect(isUnimplemented(fieldError('x', 'bad', ''))).toBe(false);
    } finally {
      older.close();
    }
  });

  it('carries the request id and actor to the handler', async () => {
    mode = 'ok';
    await runWithContext({ requestId: 'req-1', actorId: 'id-9' }, () => client.getServerTls({}));
    expect(seen).toEqual({ requestId: 'req-1', actorId: 'id-9' });
    const r = await runWithContext({ requestId: 'req-2' }, () => client.getCaCerts({}));
    expect(r.pkcs7Base64).toBe('req-2');
  });

  it('brings a ZitiError back whole: code, status and field cause', async () => {
    mode = 'field';
    const err = await client.getServerTls({}).catch((e: unknown) => e);
    expect(isZitiError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'COULD_NOT_VALIDATE', status: 400, fieldCause: { field: 'name', reason: 'must not be empty' } });
  });

  it('brings back a ZitiError echoing a huge value, shortened, at once, and the channel serves the next call', async () => {
    mode = 'huge';
    const started = Date.now();
    const err = await client.getServerTls({}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'COULD_NOT_VALIDATE', status: 400, fieldCause: { field: 'typeId', reason: 'must be one of OS, DOMAIN' } });
    const value = (err as ZitiError).fieldCause as { value: string };
    expect(value.value.length).toBeLessThan(2000);
    expect(value.value.startsWith('xxxx')).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
    mode = 'ok';
    expect((await client.getServerTls({})).certChainPem).toBe('c');
  });

  it('hides the detail of an unexpected error', async () => {
    mode = 'bug';
    const err = (await client.getServerTls({}).catch((e: unknown) => e)) as Error;
    expect(isZitiError(err)).toBe(false);
    expect(String(err.message)).not.toContain('secret internal detail');
  });

  it('turns a missed deadline into UNAVAILABLE', async () => {
    mode = 'slow';
    const err = await client.getServerTls({}, { deadlineMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZitiError);
    expect((err as ZitiError).code).toBe('UNAVAILABLE');
    // The handler still runs to its end, and is counted then: let it, before the next test counts.
    await slowHandled;
    await new Promise((r) => setTimeout(r, 50));
  });

  it('records every handled call in the process metrics by service, method and status', async () => {
    const count = async (code: string) => {
      // A histogram's values name the series each is of (`…_bucket`, `…_sum`, `…_count`).
      const metric: { values: { metricName?: string; labels: Partial<Record<string, string | number>>; value: number }[] } =
        await processMetrics().registry.getSingleMetric('edge_grpc_server_handling_seconds')!.get();
      const labels = { grpc_service: 'edge.pki.v1.PkiService', grpc_method: 'GetServerTls', grpc_code: code };
      return metric.values.find((v) => v.metricName?.endsWith('_count') && Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
    };
    const [ok, invalid] = [await count('OK'), await count('INVALID_ARGUMENT')];
    mode = 'ok';
    await client.getServerTls({});
    mode = 'field';
    await client.getServerTls({}).catch(() => undefined);
    expect(await count('OK')).toBe(ok + 1);
    expect(await count('INVALID_ARGUMENT')).toBe(invalid + 1);
  });

  it('counts every call a client makes in the process metrics by service, method and status', async () => {
    const count = async (code: string) => {
      const metric = await processMetrics().registry.getSingleMetric('edge_grpc_client_calls_total')!.get();
      const labels = { grpc_service: 'edge.pki.v1.PkiService', grpc_method: 'GetServerTls', grpc_code: code };
      return metric.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
    };
    const [ok, invalid] = [await count('OK'), await count('INVALID_ARGUMENT')];
    mode = 'ok';
    await client.getServerTls({});
    await client.getServerTls({});
    mode = 'field';
    await client.getServerTls({}).catch(() => undefined);
    expect(await count('OK')).toBe(ok + 2);
    expect(await count('INVALID_ARGUMENT')).toBe(invalid + 1);
  });

  it('recycles client connections at the maximum age without failing calls, so clients re-resolve replicas', async () => {
    let calls = 0;
    const aged = createRpcServer('pki', silentLogger(), { maxConnectionAgeMs: 150 });
    aged.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({
      async GetServerTls() {
        calls++;
        return { certChainPem: 'c', keyPem: 'k', caBundlePem: 'b' };
      },
    }));
    const port = await aged.listen('127.0.0.1:0');
    // A TCP relay in front of the server counts the connections the client opens.
    let connections = 0;
    const sockets: Socket[] = [];
    const relay = createTcpServer((down) => {
      connections++;
      const up = connect(port, '127.0.0.1');
      sockets.push(down, up);
      down.pipe(up).pipe(down);
      down.on('error', () => up.destroy());
      up.on('error', () => down.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const c = createRpcClient(contracts.pki(), `127.0.0.1:${(relay.address() as { port: number }).port}`, { deadlineMs: 2000 });
    try {
      for (let i = 0; i < 5; i++) {
        await c.getServerTls({});
        await new Promise((r) => setTimeout(r, 120));
      }
      expect(calls).toBe(5);
      expect(connections).toBeGreaterThanOrEqual(2);
    } finally {
      c.close();
      sockets.forEach((x) => x.destroy());
      relay.close();
      await aged.stop(100);
    }
  });
});

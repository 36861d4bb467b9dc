/** What the tracing tests share: gRPC servers on loopback, stopped together. */
import { createRpcServer, type AsyncHandlers, type RpcServer } from '@edge/rpc';
import { silentLogger } from '@edge/logging';

/** Servers started by {@link serve}, for the test's afterAll to stop. */
export const servers: RpcServer[] = [];

/** Serves `handlers` as service `name` on a free loopback port; resolves its address. */
export async function serve<H>(name: string, service: Parameters<RpcServer['add']>[0], handlers: AsyncHandlers<H>): Promise<string> {
  const server = createRpcServer(name, silentLogger());
  server.add<H>(service, handlers);
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  servers.push(server);
  return `127.0.0.1:${port}`;
}

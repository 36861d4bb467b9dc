/**
 * What the pki service tests share: CSRs made with openssl, and small gRPC stand-ins for the
 * services pki calls (the only things outside the process under test).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { notFound } from '@edge/errors';
import { silentLogger } from '@edge/logging';
import type { IdentityServiceHandlers } from '@edge/proto';
import { createRpcServer, stubHandlers, type AsyncHandlers, type RpcServer } from '@edge/rpc';

/** A PEM CSR with subject CN=`cn` for a fresh P-256 key written under `dir`. */
export function makeCsr(dir: string, cn: string): string {
  const key = join(dir, `k${randomBytes(4).toString('hex')}.pem`);
  execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key], { stdio: 'ignore' });
  return execFileSync('openssl', ['req', '-new', '-key', key, '-subj', `/CN=${cn}`], { encoding: 'utf8' });
}

/** Stand-in gRPC servers on loopback; `stop` ends every one started. */
export function createFakes() {
  const servers: RpcServer[] = [];
  return {
    /** Serves `handlers` (the rest answer UNIMPLEMENTED); resolves with the address. */
    async add<H>(name: string, contract: Parameters<RpcServer['add']>[0], handlers: Partial<AsyncHandlers<H>>): Promise<string> {
      const server = createRpcServer(name, silentLogger());
      server.add<H>(contract, stubHandlers<H>(handlers));
      servers.push(server);
      return `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
    },
    async stop(): Promise<void> {
      await Promise.all(servers.splice(0).map((s) => s.stop(100)));
    },
  };
}

/** The identity service's look-ups of identities, answering for the ids in `identities` (as they are when asked). */
export function identityLookups(identities: ReadonlySet<string>): Pick<AsyncHandlers<IdentityServiceHandlers>, 'GetIdentity' | 'GetIdentities'> {
  return {
    async GetIdentity(req) {
      if (!identities.has(req.id)) throw notFound('identity', req.id);
      return { id: req.id } as never;
    },
    async GetIdentities(req) {
      return { identities: req.ids.filter((i) => identities.has(i)).map((id) => ({ id }) as never) };
    },
  };
}

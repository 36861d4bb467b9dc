// Container health check: `node deploy/docker/healthcheck.mjs <component>` exits 0 when the
// process in this container answers, 1 otherwise. A gRPC service must answer grpc.health.v1
// Check with SERVING on its listen address (with EDGE_GRPC_TLS=mtls, which admits only holders of
// a service certificate, accept connections there: a service listens once it is ready); the
// gateway must answer GET /version over HTTPS. Addresses come from the same EDGE_* variables the
// process reads (libs/config).
import { connect } from 'node:net';
import { request } from 'node:https';
import { SERVICE_NAMES, grpcListenAddr, loadConfig } from '@edge/config';
import { contracts } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';

const TIMEOUT_MS = 2500;
const component = process.argv[2];

/** A listen address as a local target: the wildcard hosts are reached on loopback. */
function local(addr) {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i);
  return `${host === '0.0.0.0' || host === '' || host === '[::]' ? '127.0.0.1' : host}:${addr.slice(i + 1)}`;
}

function accepts(address) {
  const i = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: address.slice(0, i), port: Number(address.slice(i + 1)), timeout: TIMEOUT_MS });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(false));
  });
}

async function grpcHealthy(name, config) {
  if (config.grpc.tls.mode === 'mtls') return accepts(local(grpcListenAddr(config, name)));
  const client = createRpcClient(contracts.health(), local(grpcListenAddr(config, name)), { deadlineMs: TIMEOUT_MS });
  try {
    return (await client.check({})).status === 'SERVING';
  } finally {
    client.close();
  }
}

function httpsHealthy(config) {
  const [host, port] = [local(config.http.addr).replace(/:\d+$/, ''), Number(config.http.addr.split(':').pop())];
  return new Promise((resolve) => {
    // The server certificate chains to the controller's own CA; reachability is what counts here.
    const req = request({ host, port, path: '/version', rejectUnauthorized: false, timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

if (component !== 'gateway' && !SERVICE_NAMES.includes(component)) {
  process.stderr.write(`usage: healthcheck.mjs <gateway|${SERVICE_NAMES.join('|')}>\n`);
  process.exit(2);
}
const config = loadConfig();
const healthy = await (component === 'gateway' ? httpsHealthy(config) : grpcHealthy(component, config)).catch(() => false);
process.exit(healthy ? 0 : 1);

/**
 * The controller's chain over the store: created once at first start (even with several
 * replicas starting together), reused afterwards, server certificate re-issued when needed.
 */
import type { Logger } from '@edge/logging';
import {
  createIntermediateCa,
  createRootCa,
  createServerCertificate,
  type CertificateKind,
  type IssuedCertificate,
  type Signer,
} from './domain/certificates.js';
import { caCerts, serverCertificateIssue, serverTls, type CaCerts, type ControllerChain, type ServerTls } from './domain/controller-chain.js';
import { decryptKey, encryptKey, KeyDecryptionError } from '@edge/key-encryption';
import { importPrivateKeyPem } from './domain/keys.js';
import { createServiceCa } from './domain/service-ca.js';
import type { SubjectAltNames } from './domain/server-hosts.js';
import type { ControllerCertificateStore, StoredCertificate } from './store/controller-certificate.js';

/** The controller chain as the service's handlers see it. */
export interface ControllerPki {
  /** Creates what is missing and re-issues the server certificate when due; returns the chain. */
  ensure(): Promise<ControllerChain>;
  /** The listener's TLS material, read fresh so every replica serves the same certificate. */
  serverTls(): Promise<ServerTls>;
  /** The CA chain for EST cacerts. */
  caCerts(): Promise<CaCerts>;
  /** What enrollment signs with: the intermediate CA (certificates) and the listener's key (JWTs). */
  enrollmentSigners(): Promise<EnrollmentSigners>;
  /** The internal service CA (created at first use), which signs the processes' certificates for mutual TLS. */
  serviceCa(): Promise<Signer>;
}

/** The keys enrollment signs with, read fresh like the listener's TLS material. */
export interface EnrollmentSigners {
  /** Issues enrolled identities' and routers' certificates. */
  intermediate: Signer;
  /** The server certificate and key: enrollment JWTs are signed with the listener's key. */
  server: { certPem: string; keyPem: string };
  /** The listener's chain (leaf first), as the gateway serves it. */
  serverChainPem: string;
  /** Intermediate then root, what enrolled clients trust. */
  caBundlePem: string;
}

/** Options of {@link createControllerPki}. */
export interface ControllerPkiOptions {
  store: ControllerCertificateStore;
  kek: Buffer;
  /** Names the server certificate must carry. */
  names: SubjectAltNames;
  /** Advisory lock name serialising bootstrap across replicas (per schema). */
  lockName: string;
  log: Logger;
}

/** Creates the controller PKI over `opts.store`. */
export function createControllerPki(opts: ControllerPkiOptions): ControllerPki {
  const { store, kek, names, log } = opts;
  const seal = (c: IssuedCertificate): StoredCertificate => {
    const { keyPem, ...rest } = c;
    return { ...rest, keyEncrypted: encryptKey(keyPem, kek, aad(c.kind)) };
  };

  const read = async (s: ControllerCertificateStore): Promise<{ chain?: ControllerChain; byKind: Map<CertificateKind, StoredCertificate> }> => {
    const byKind = new Map((await s.listCertificates()).map((c) => [c.kind, c] as const));
    const root = byKind.get('root-ca');
    const inter = byKind.get('intermediate-ca');
    const server = byKind.get('server');
    if (!root || !inter || !server) return { byKind };
    return { byKind, chain: { rootCa: open(root, kek), intermediateCa: open(inter, kek), server: open(server, kek) } };
  };

  const ensure = async (): Promise<ControllerChain> => {
    const current = await read(store);
    if (current.chain && !serverCertificateIssue(current.chain.server, names)) return current.chain;
    // Someone must write: take the lock, then decide again on what is there now.
    return store.withLock(opts.lockName, async (tx) => {
      const { byKind } = await read(tx);
      let root = byKind.get('root-ca');
      if (!root) {
        root = seal(await createRootCa());
        await tx.insertCertificate(root);
        log.info({ serialNumber: root.serialNumber, notAfter: root.notAfter }, 'created the controller root CA');
      }
      let inter = byKind.get('intermediate-ca');
      if (!inter) {
        inter = seal(await createIntermediateCa(await signer(root, kek)));
        await tx.insertCertificate(inter);
        log.info({ serialNumber: inter.serialNumber, notAfter: inter.notAfter }, 'created the controller signing CA');
      }
      const server = byKind.get('server');
      const reason = serverCertificateIssue(server, names);
      if (reason) {
        const issued = seal(await createServerCertificate(await signer(inter, kek), names));
        await (server ? tx.replaceCertificate(issued) : tx.insertCertificate(issued));
        log.info({ reason, serialNumber: issued.serialNumber, sans: issued.sans, notAfter: issued.notAfter }, 'issued the server certificate');
      }
      const after = await read(tx);
      if (!after.chain) throw new Error('controller chain incomplete after bootstrap');
      return after.chain;
    });
  };

  let serviceCaSigner: Promise<Signer> | undefined;
  const serviceCa = async (): Promise<Signer> => {
    const find = async (s: ControllerCertificateStore) => (await s.listCertificates()).find((c) => c.kind === 'service-ca');
    const stored = (await find(store)) ?? await store.withLock(opts.lockName, async (tx) => {
      const there = await find(tx);
      if (there) return there;
      const created = seal(await createServiceCa());
      await tx.insertCertificate(created);
      log.info({ serialNumber: created.serialNumber, notAfter: created.notAfter }, 'created the internal service CA');
      return created;
    });
    return signer(stored, kek);
  };

  return {
    ensure,
    serviceCa() {
      // Created once and never replaced while the process runs; a failed read is tried again.
      serviceCaSigner ??= serviceCa().catch((err: unknown) => {
        serviceCaSigner = undefined;
        throw err;
      });
      return serviceCaSigner;
    },
    async serverTls() {
      return serverTls(await ensure());
    },
    async caCerts() {
      return caCerts(await ensure());
    },
    async enrollmentSigners() {
      const chain = await ensure();
      const tls = serverTls(chain);
      return {
        intermediate: { certPem: chain.intermediateCa.certPem, key: await importPrivateKeyPem(chain.intermediateCa.keyPem) },
        server: { certPem: chain.server.certPem, keyPem: chain.server.keyPem },
        serverChainPem: tls.certChainPem,
        caBundlePem: tls.caBundlePem,
      };
    },
  };
}

/** Binds each ciphertext to its row, so keys cannot be swapped between kinds. */
function aad(kind: CertificateKind): string {
  return `edge.pki.controller_certificates:${kind}`;
}

function open(c: StoredCertificate, kek: Buffer): ControllerChain['server'] {
  try {
    return { kind: c.kind, certPem: c.certPem, notAfter: c.notAfter, sans: c.sans, keyPem: decryptKey(c.keyEncrypted, kek, aad(c.kind)) };
  } catch (err) {
    if (err instanceof KeyDecryptionError) {
      throw new KeyDecryptionError(`cannot decrypt the controller ${c.kind} key: the key-encryption key (EDGE_KEY_ENCRYPTION_KEY or <dataDir>/pki.key) is not the one it was stored with`);
    }
    throw err;
  }
}

async function signer(c: StoredCertificate, kek: Buffer) {
  return { certPem: c.certPem, key: await importPrivateKeyPem(open(c, kek).keyPem) };
}

/**
 * Mutual TLS between the controller's processes. Each process holds one certificate issued by
 * the controller's internal service CA (see join.ts for how it is obtained); its gRPC servers
 * require callers to present one from the same CA and its clients present it and verify the
 * server's. Certificates name a process by role, `<name>.grpc.edge.internal`, not by host, so
 * the check holds whatever address reaches the server (a Kubernetes Service name, 127.0.0.1, an
 * ipv4: list of replicas). A renewed certificate is used for every new connection at once.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';

/** The DNS suffix of the names service certificates carry. */
export const MESH_DOMAIN = 'grpc.edge.internal';

/** The name a process called `name` (auth, pki, …, gateway) carries in its certificate. */
export function meshServerName(name: string): string {
  return `${name}.${MESH_DOMAIN}`;
}

/** A process's certificate, its private key (never sent anywhere) and the CA it trusts. */
export interface MeshCertificate {
  keyPem: string;
  certPem: string;
  caPem: string;
}

/** When a certificate starts and stops being valid. */
export interface Validity {
  notBefore: Date;
  notAfter: Date;
}

type Listener<T> = (update: T | null) => void;

/** The certificate a process uses on every gRPC server and client, replaceable while running. */
export interface MeshCredentials {
  /** Installs a (new) certificate; connections made from now on use it. */
  update(certificate: MeshCertificate): void;
  /** The current certificate's validity (undefined before the first). */
  validity(): Validity | undefined;
  /** Server credentials: client certificates required, or only requested (see RpcServerOptions.openMethods). */
  serverCredentials(requireClientCertificate: boolean): grpc.ServerCredentials;
  /** Channel credentials presenting this certificate and trusting only the service CA. */
  channelCredentials(): grpc.ChannelCredentials;
}

/** Creates credentials that hold no certificate yet: servers drop connections and clients wait until {@link MeshCredentials.update}. */
export function createMeshCredentials(): MeshCredentials {
  let current: { cert: MeshCertificate; validity: Validity } | undefined;
  const caListeners = new Set<Listener<grpc.experimental.CaCertificateUpdate>>();
  const identityListeners = new Set<Listener<grpc.experimental.IdentityCertificateUpdate>>();
  const caUpdate = () => (current ? { caCertificate: Buffer.from(current.cert.caPem) } : null);
  const identityUpdate = () => (current ? { certificate: Buffer.from(current.cert.certPem), privateKey: Buffer.from(current.cert.keyPem) } : null);
  // A new listener hears the current certificate on the next tick: grpc-js registers the server
  // watcher that applies it only after adding the listener, so an update at once would be lost.
  const later = <T>(set: Set<Listener<T>>, l: Listener<T>, update: () => T | null) =>
    queueMicrotask(() => {
      if (current && set.has(l)) l(update());
    });
  const provider: grpc.experimental.CertificateProvider = {
    addCaCertificateListener(l) {
      caListeners.add(l);
      later(caListeners, l, caUpdate);
    },
    removeCaCertificateListener: (l) => void caListeners.delete(l),
    addIdentityCertificateListener(l) {
      identityListeners.add(l);
      later(identityListeners, l, identityUpdate);
    },
    removeIdentityCertificateListener: (l) => void identityListeners.delete(l),
  };
  // One instance, so grpc-js shares connections between clients of the same target.
  let channel: grpc.ChannelCredentials | undefined;
  return {
    update(cert) {
      current = { cert, validity: checkedValidity(cert) };
      for (const l of caListeners) l(caUpdate());
      for (const l of identityListeners) l(identityUpdate());
    },
    validity: () => current?.validity,
    serverCredentials: (require) => grpc.experimental.createCertificateProviderServerCredentials(provider, provider, require),
    channelCredentials: () => (channel ??= grpc.experimental.createCertificateProviderChannelCredentials(provider, provider)),
  };
}

/** Checks that the key belongs to the certificate and the certificate to the CA; its validity. */
function checkedValidity(cert: MeshCertificate): Validity {
  const leaf = new X509Certificate(cert.certPem);
  if (!leaf.checkPrivateKey(createPrivateKey(cert.keyPem))) throw new Error('the service certificate does not match its private key');
  const ca = new X509Certificate(cert.caPem);
  if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey)) throw new Error('the service certificate is not issued by the service CA');
  return { notBefore: new Date(leaf.validFrom), notAfter: new Date(leaf.validTo) };
}

let processCredentials: MeshCredentials | undefined;

/**
 * Makes `credentials` the default of every server and client this process creates from now on
 * (and of clients created earlier, at their next connection); undefined returns to plaintext.
 * Set once at start-up by a process that runs with EDGE_GRPC_TLS=mtls.
 */
export function useMeshCredentials(credentials: MeshCredentials | undefined): void {
  processCredentials = credentials;
}

/** The process's default credentials (undefined: plaintext). */
export function processMeshCredentials(): MeshCredentials | undefined {
  return processCredentials;
}

/** True when the call came over TLS with a client certificate the server verified against the service CA. */
export function hasVerifiedPeer(call: { getAuthContext(): { sslPeerCertificate?: unknown } }): boolean {
  // grpc-js reports the peer certificate only when the TLS handshake authorised it.
  return call.getAuthContext().sslPeerCertificate !== undefined;
}

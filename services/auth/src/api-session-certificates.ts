/**
 * API session certificates (OpenZiti's ApiSessionCertificateManager): short-lived client
 * certificates an API session asks for with a CSR, issued by the pki service, listed and deleted
 * by that session only, and deleted with it (a foreign key in this schema).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { notFound } from '@edge/errors';
import { newId } from '@edge/ids';
import type { AuthServiceHandlers, auth as pb } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { API_SESSION_CERTIFICATE_FIELDS, type ApiSessionCertificate, type ApiSessionCertificateStore } from './store/api-session-certificate.js';

/** How long an API session certificate lasts (OpenZiti issues them for 12 hours). */
export const API_SESSION_CERTIFICATE_SECONDS = 12 * 60 * 60;

/** Issues the certificate: the pki service's IssueSessionCertificate. */
export type IssueSessionCertificate = (csrPem: string, validSeconds: number) => Promise<{ clientCert: string; ca: string }>;

function toProto(c: ApiSessionCertificate): pb.ApiSessionCertificate {
  return {
    id: c.id, subject: c.subject, fingerprint: c.fingerprint, validFrom: c.validFrom.toISOString(), validTo: c.validTo.toISOString(),
    certificate: c.certPem, createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString(),
  };
}

type Handlers = Pick<AsyncHandlers<AuthServiceHandlers>, 'CreateApiSessionCertificate' | 'ListApiSessionCertificates' | 'GetApiSessionCertificate' | 'DeleteApiSessionCertificate'>;

/** The handlers over the store; `issue` asks the pki service. */
export function createApiSessionCertificateHandlers(store: ApiSessionCertificateStore, issue: IssueSessionCertificate): Handlers {
  return {
    async CreateApiSessionCertificate(req) {
      const issued = await issue(req.csrPem, API_SESSION_CERTIFICATE_SECONDS);
      const cert = new X509Certificate(issued.clientCert);
      const id = newId();
      await store.insert({
        id, apiSessionId: req.apiSessionId, subject: cert.subject.split('\n').join(','), certPem: issued.clientCert,
        fingerprint: createHash('sha1').update(cert.raw).digest('hex'), validFrom: new Date(cert.validFrom), validTo: new Date(cert.validTo),
      });
      return { id, certificate: issued.clientCert, cas: issued.ca };
    },
    async ListApiSessionCertificates(req) {
      const plan = planList(API_SESSION_CERTIFICATE_FIELDS, listParams(req.query));
      const { items, total } = await store.list(req.apiSessionId, plan);
      return { certificates: items.map(toProto), meta: listMeta(plan, total, API_SESSION_CERTIFICATE_FIELDS) };
    },
    async GetApiSessionCertificate(req) {
      const found = await store.find(req.apiSessionId, req.id);
      if (!found) throw notFound('apiSessionCertificate', req.id);
      return toProto(found);
    },
    async DeleteApiSessionCertificate(req) {
      if (!(await store.delete(req.apiSessionId, req.id))) throw notFound('apiSessionCertificate', req.id);
      return {};
    },
  };
}

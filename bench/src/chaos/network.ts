/**
 * What the chaos load needs in the controller: a service that identities in role #chaos may
 * dial (with an edge router and the policies that reach it), and password identities in that
 * role, logged in and holding a session.
 */
import type { HttpClient } from '@edge/testing';
import { ADMIN } from '../controller.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
export const ROLE = 'chaos';
export const PASSWORD = 'chaos-password-1';

/** The admin's API session and the service every #chaos identity may dial. */
export interface ChaosNetwork {
  admin: string;
  serviceId: string;
}

/** A password identity logged in once, with one Dial session. */
export interface Enrolled {
  id: string;
  name: string;
  token: string;
  sessionId: string;
}

async function expectStatus(status: number, call: Promise<{ status: number; text: string; body: any }>, what: string) {
  const r = await call;
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text.slice(0, 300)}`);
  return r.body;
}

/** Logs in with a password on the client API; answers the API session token. */
export async function login(http: HttpClient, username: string, password: string): Promise<string> {
  return (await expectStatus(200, http.post(`${C}/authenticate?method=password`, { body: { username, password } }), `login of ${username}`)).data.token;
}

/** Creates the service, the edge router and the three policies; logs the admin in. */
export async function createNetwork(http: HttpClient): Promise<ChaosNetwork> {
  const admin = (await expectStatus(200, http.post(`${M}/authenticate?method=password`, { body: ADMIN }), 'admin login')).data.token as string;
  const post = async (path: string, body: unknown) => (await expectStatus(201, http.post(`${M}${path}`, { body, session: admin }), `POST ${path}`)).data.id as string;
  const serviceId = await post('/services', { name: 'chaos-service', encryptionRequired: true, roleAttributes: [ROLE] });
  await post('/edge-routers', { name: 'chaos-edge-router', roleAttributes: [ROLE] });
  await post('/edge-router-policies', { name: 'chaos-erp', semantic: 'AnyOf', identityRoles: [`#${ROLE}`], edgeRouterRoles: [`#${ROLE}`] });
  await post('/service-edge-router-policies', { name: 'chaos-serp', semantic: 'AllOf', serviceRoles: [`#${ROLE}`], edgeRouterRoles: [`#${ROLE}`] });
  await post('/service-policies', { name: 'chaos-dial', type: 'Dial', semantic: 'AllOf', identityRoles: [`#${ROLE}`], serviceRoles: [`#${ROLE}`] });
  return { admin, serviceId };
}

/** Creates `name` in role #chaos with a updb enrollment, enrolls it, logs it in and dials the service. */
export async function enroll(http: HttpClient, net: ChaosNetwork, name: string): Promise<Enrolled> {
  const body = { name, type: 'User', isAdmin: false, roleAttributes: [ROLE], enrollment: { updb: name } };
  const id = (await expectStatus(201, http.post(`${M}/identities`, { body, session: net.admin }), `create ${name}`)).data.id as string;
  const detail = await expectStatus(200, http.get(`${M}/identities/${id}`, { session: net.admin }), `read ${name}`);
  const enrollment = encodeURIComponent(detail.data.enrollment.updb.token as string);
  await expectStatus(200, http.post(`${C}/enroll/updb?token=${enrollment}`, { body: { password: PASSWORD } }), `enroll ${name}`);
  const token = await login(http, name, PASSWORD);
  const session = await expectStatus(201, http.post(`${C}/sessions`, { body: { serviceId: net.serviceId }, session: token }), `session of ${name}`);
  return { id, name, token, sessionId: session.data.id as string };
}

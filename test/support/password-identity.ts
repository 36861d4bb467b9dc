/**
 * A non-admin identity that can log in with a password, made as an admin would: created with a
 * updb enrollment, which the test then completes through `POST /enroll/updb`.
 */
import type { TestController } from './controller.js';

/** Creates an identity through the API and enrolls `name` / `password` for it. */
export async function createPasswordIdentity(c: TestController, adminToken: string, name: string, password: string, isAdmin = false) {
  const r = await c.http.post('/edge/management/v1/identities', {
    body: { name, type: 'User', isAdmin, enrollment: { updb: name } }, session: adminToken, expectStatus: 201,
  });
  const id = r.body.data.id as string;
  const detail = await c.http.get(`/edge/management/v1/identities/${id}`, { session: adminToken, expectStatus: 200 });
  const token = detail.body.data.enrollment.updb.token as string;
  await c.http.post(`/edge/client/v1/enroll/updb?token=${encodeURIComponent(token)}`, { body: { password }, expectStatus: 200 });
  return { id, token: await c.login(name, password) };
}

/**
 * Short calls on the management API as an admin, each checking the status it expects.
 */
import type { TestController } from './controller.js';

export const M = '/edge/management/v1';

/** get/post/put/patch/del under the management base, with the admin's session (both read at call time). */
export function adminApi(controller: () => TestController, session: () => string) {
  const call = (method: 'get' | 'post' | 'put' | 'patch' | 'delete') => (path: string, ...rest: unknown[]) => {
    const hasBody = method === 'post' || method === 'put' || method === 'patch';
    const body = hasBody ? rest[0] : undefined;
    const expectStatus = (hasBody ? rest[1] : rest[0]) as number | undefined;
    return controller().http[method](`${M}${path}`, { body, session: session(), expectStatus: expectStatus ?? (method === 'post' ? 201 : 200) });
  };
  return {
    get: call('get') as (path: string, expectStatus?: number) => ReturnType<TestController['http']['get']>,
    post: call('post') as (path: string, body: unknown, expectStatus?: number) => ReturnType<TestController['http']['post']>,
    put: call('put') as (path: string, body: unknown, expectStatus?: number) => ReturnType<TestController['http']['put']>,
    patch: call('patch') as (path: string, body: unknown, expectStatus?: number) => ReturnType<TestController['http']['patch']>,
    del: call('delete') as (path: string, expectStatus?: number) => ReturnType<TestController['http']['delete']>,
  };
}

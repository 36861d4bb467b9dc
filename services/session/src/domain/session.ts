/**
 * Sessions: the right of one API session to dial or bind one service (OpenZiti
 * controller/model/session_manager.go).
 */
import { fieldError } from '@edge/errors';

export type SessionType = 'Dial' | 'Bind';

export interface Session {
  id: string;
  token: string;
  apiSessionId: string;
  identityId: string;
  serviceId: string;
  serviceName: string;
  type: SessionType;
  servicePolicyIds: string[];
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** The session type of a request: Dial when absent, as OpenZiti defaults it. */
export function sessionType(raw: string): SessionType {
  if (raw === '' || raw === 'Dial') return 'Dial';
  if (raw === 'Bind') return 'Bind';
  throw fieldError('type', 'must be Dial or Bind', raw);
}

/**
 * Whether the permissions an identity holds on a service allow a session of this type. OpenZiti
 * refuses a missing permission as a field error on serviceId ("service not found").
 */
export function assertPermitted(permissions: readonly string[], type: SessionType, serviceId: string): void {
  if (!permissions.includes(type)) throw fieldError('serviceId', 'service not found', serviceId);
}

/** Tags of a request, as JSON text from the gateway. */
export function parseTags(json: string): Record<string, unknown> {
  if (json === '') return {};
  const v: unknown = JSON.parse(json);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fieldError('tags', 'must be an object', json);
  return v as Record<string, unknown>;
}

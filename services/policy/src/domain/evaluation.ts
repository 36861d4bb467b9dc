/**
 * What an identity is told about the services it may use: its permissions (the types of the
 * policies granting it) and, per granting policy, the posture checks to pass
 * (controller/model/posture_response_model.go and service_api_model.go in OpenZiti). Whether a
 * check passes depends on posture data, which lives with sessions (the session service).
 */
import type { PostureCheck } from './posture-check.js';

/** A service policy granting a service, with the posture checks its roles select. */
export interface GrantingPolicy {
  id: string;
  name: string;
  type: 'Dial' | 'Bind';
  checks: PostureCheck[];
}

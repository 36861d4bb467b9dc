/**
 * Every store of the pki service over its own schema.
 */
import type { PkiEvents } from '../events.js';
import { createCaStore } from './ca.js';
import { createControllerCertificateStore } from './controller-certificate.js';
import type { PkiKysely } from './db.js';
import { createEnrollmentStore } from './enrollment.js';
import { createKeyEncryptionStore } from './key-encryption.js';

/** The stores; CA and enrollment writes record their events through `events` in their transaction. */
export function createPkiStores(db: PkiKysely, events: PkiEvents) {
  return {
    keyEncryption: createKeyEncryptionStore(db),
    controllerCertificates: createControllerCertificateStore(db),
    cas: createCaStore(db, events),
    enrollments: createEnrollmentStore(db, events),
  };
}

export type PkiStores = ReturnType<typeof createPkiStores>;
export type { PkiDb } from './db.js';

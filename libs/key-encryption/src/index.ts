/**
 * @edge/key-encryption: the controller's key-encryption key (configured or a key file in the
 * data directory) and AES-256-GCM sealing of secrets at rest under it.
 */
export { resolveKek, loadOrCreateKeyFile, KEY_FILE, type EnsureSalt } from './kek.js';
export {
  decryptKey,
  deriveKey,
  encryptKey,
  keyFromConfigured,
  KeyDecryptionError,
  newSalt,
  parseRawKey,
} from './key-encryption.js';

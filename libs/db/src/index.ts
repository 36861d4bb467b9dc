/**
 * @edge/db: Kysely over a pg pool (distributed) or one embedded PGlite shared by every
 * service of the process (standalone), one schema per service, raw-SQL migrations.
 */
export { openConnection, type DbConnection, type OpenConnectionOptions } from './connection.js';
export { createDb, dropSchema, executeSql } from './db.js';
export { precompiled } from './precompiled.js';
export { preparedAmong } from './prepared.js';
export { migrate } from './migrate.js';
export { isUniqueViolation, isForeignKeyViolation, isDatabaseUnavailable, asDatabaseError, type ConstraintViolation } from './errors.js';
export { quoteSchemaName } from './schema-name.js';
export { vacuumAnalyzeTables, inChunks, withRowProgress } from './chunks.js';

/** The only schema names that may be spliced into SQL text. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Throws unless `schema` is a plain lower-case identifier, so it can be quoted into SQL text
 * (DDL and `search_path` cannot take parameters). Returns the name, double-quoted.
 */
export function quoteSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema) || schema.length > 63) {
    throw new Error(`invalid schema name ${JSON.stringify(schema)}: must match ${SCHEMA_NAME.source}`);
  }
  return `"${schema}"`;
}

/**
 * ZitiQL, the filter language of OpenZiti lists: parser → typed AST → parameterised kysely
 * expressions over a per-resource allow-list of fields, plus the list plan (paging, sorting,
 * counting) every list endpoint shares.
 */
export type { BoolExpr, CompareOp, Literal, Operand, Query, SetExpr, SortField } from './ast.js';
export { filterError, queryError, type ListParam } from './errors.js';
export { tokenize, type Token } from './lexer.js';
export { parseFilter, parseSort, MAX_DEPTH, MAX_FILTER_LENGTH } from './parser.js';
export { entityFields, field, filterableFields, resolveField, type FieldDef, type FieldMap, type FieldOptions, type FieldType, type ResolvedField } from './fields.js';
export { compileWhere } from './compile.js';
export {
  planList, runList, withCondition, listParams, listMeta, DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, UNBOUNDED,
  type ListOptions, type ListParams, type ListPlan, type ListQueryMessage,
} from './list.js';
export { evaluate, sortRecords, compareCodePoints, type FilterRecord } from './evaluate.js';

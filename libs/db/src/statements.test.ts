import { describe, expect, it } from 'vitest';
import { statementOperation } from './statements.js';

describe('statementOperation', () => {
  it('names a statement by its first keyword, in lower case', () => {
    expect(statementOperation('select 1')).toBe('select');
    expect(statementOperation('\n\t  INSERT into x')).toBe('insert');
    expect(statementOperation('With a as (select 1) select * from a')).toBe('with');
    expect(statementOperation('savepoint "s"')).toBe('savepoint');
  });

  it('counts `start transaction` as `begin`, and anything unknown as `other`', () => {
    expect(statementOperation('start transaction isolation level serializable')).toBe('begin');
    expect(statementOperation('selected')).toBe('other');
    expect(statementOperation('(select 1)')).toBe('other');
    expect(statementOperation('explain select 1')).toBe('other');
    expect(statementOperation('vacuum (analyze) t')).toBe('vacuum');
    expect(statementOperation('')).toBe('other');
  });
});

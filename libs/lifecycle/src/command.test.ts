import { describe, expect, it } from 'vitest';
import { parseCommand, usage } from './command.js';

const spec = { program: 'main.js', commands: { standalone: 'one process', cluster: 'many', import: 'load' }, args: { import: '<file>' } };

describe('parseCommand', () => {
  it('runs the first command by default and a named one with its arguments', () => {
    expect(parseCommand(spec, [])).toEqual({ kind: 'run', command: 'standalone', args: [] });
    expect(parseCommand(spec, ['cluster'])).toEqual({ kind: 'run', command: 'cluster', args: [] });
    expect(parseCommand(spec, ['import', 'x.json'])).toEqual({ kind: 'run', command: 'import', args: ['x.json'] });
  });

  it('asks for help wherever --help or -h is, and for the word help', () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['cluster', '--help'], ['import', 'x.json', '-h']]) expect(parseCommand(spec, argv), argv.join(' ')).toEqual({ kind: 'help' });
  });

  it('refuses a mistyped command and an argument a command does not take', () => {
    expect(parseCommand(spec, ['standalon'])).toEqual({ kind: 'unknown', word: 'standalon' });
    expect(parseCommand(spec, ['cluster', '--replicas=2'])).toEqual({ kind: 'unknown', word: '--replicas=2' });
    expect(parseCommand(spec, ['toString'])).toEqual({ kind: 'unknown', word: 'toString' });
  });

  it('lists every command, its arguments and the default in the usage', () => {
    const text = usage(spec);
    expect(text).toMatch(/^usage: main\.js \[standalone\|cluster\|import\]/);
    expect(text).toMatch(/standalone\s+one process \(default\)/);
    expect(text).toMatch(/import <file>\s+load/);
  });
});

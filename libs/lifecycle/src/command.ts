/**
 * The command line of every process: one command word (or none, for the default), `--help`.
 * A mistyped command prints the usage and exits 2 instead of starting anything.
 */

/** What a program accepts: its name, its commands (first is the default) and what each does. */
export interface CommandSpec<C extends string> {
  program: string;
  commands: Record<C, string>;
  /** Arguments a command takes, shown in the usage (`import: '<dataset.json>'`). */
  args?: Partial<Record<C, string>>;
}

/** The usage text of `spec`. */
export function usage<C extends string>(spec: CommandSpec<C>): string {
  const names = Object.keys(spec.commands) as C[];
  const width = Math.max(...names.map((n) => `${n} ${spec.args?.[n] ?? ''}`.trim().length));
  const lines = names.map((n, i) => `  ${`${n} ${spec.args?.[n] ?? ''}`.trim().padEnd(width)}  ${spec.commands[n]}${i === 0 ? ' (default)' : ''}`);
  return `usage: ${spec.program} [${names.join('|')}]\n\n${lines.join('\n')}\n\nConfiguration comes from EDGE_* environment variables (see README.md, Configuration).\n`;
}

/** What the command line asks for: a command and its arguments, or help, or a mistake. */
export type ParsedCommand<C extends string> =
  | { kind: 'run'; command: C; args: string[] }
  | { kind: 'help' }
  | { kind: 'unknown'; word: string };

/** Parses `argv` (the arguments after the script). */
export function parseCommand<C extends string>(spec: CommandSpec<C>, argv: readonly string[]): ParsedCommand<C> {
  if (argv.some((a) => a === '--help' || a === '-h')) return { kind: 'help' };
  const [word, ...args] = argv;
  if (word === undefined) return { kind: 'run', command: Object.keys(spec.commands)[0] as C, args: [] };
  if (word === 'help') return { kind: 'help' };
  if (!Object.hasOwn(spec.commands, word)) return { kind: 'unknown', word };
  // A command that takes no arguments refuses one rather than ignore a typo (`standalone --prot`).
  if (args.length > 0 && spec.args?.[word as C] === undefined) return { kind: 'unknown', word: args[0]! };
  return { kind: 'run', command: word as C, args };
}

/**
 * The command to run; prints the usage and exits (0 for help, 2 for an unknown command) when the
 * command line asks for nothing to run.
 */
export function commandOrExit<C extends string>(spec: CommandSpec<C>, argv: readonly string[] = process.argv.slice(2)): { command: C; args: string[] } {
  const parsed = parseCommand(spec, argv);
  if (parsed.kind === 'run') return parsed;
  if (parsed.kind === 'help') {
    process.stdout.write(usage(spec));
    process.exit(0);
  }
  process.stderr.write(`unknown command or argument ${JSON.stringify(parsed.word)}\n${usage(spec)}`);
  process.exit(2);
}

/**
 * The shape of a command-line interface, as data: each command once, with its options and help. The parser
 * (program.ts), `--help` and the generated reference (reference.ts) are all built from it.
 */
export interface OptionSpec {
  /** The long flag without its dashes: `workspace` for `--workspace`. */
  name: string;
  /** The placeholder of its value (`id` shows as `--workspace <id>`); none for a switch given alone (`--dry-run`). */
  value?: string;
  description: string;
  required?: boolean;
  choices?: readonly string[];
  default?: string;
  /** May be given more than once; every value is kept, in order. */
  repeatable?: boolean;
}

export interface ArgumentSpec {
  name: string;
  description: string;
}

export interface CommandSpec {
  /** The words that select it: `key create`, `upload`. */
  name: string;
  /** One line, shown in command lists. */
  summary: string;
  arguments?: readonly ArgumentSpec[];
  options: readonly OptionSpec[];
  /** More about it, shown under its options in `--help` and in the reference. */
  help?: string;
}

export interface CliSpec {
  /** How it is run, before the command's words: `npm run admin --`. */
  invocation: string;
  summary: string;
  /** One line for each first word shared by several commands (`key` of `key create`, `key list`…). */
  groups: Readonly<Record<string, string>>;
  commands: readonly CommandSpec[];
  /** Shown under the command list. */
  footer?: string;
}

/** `--overage on|off`, `--workspace <id>`, `--dry-run`. */
export function optionTerm(option: OptionSpec): string {
  if (option.choices) return `--${option.name} ${option.choices.join('|')}`;
  return option.value ? `--${option.name} <${option.value}>` : `--${option.name}`;
}

/** What follows the command's words: its arguments, the options it needs, then the others in brackets. */
export function synopsisTail(command: CommandSpec): string {
  const optional = (o: OptionSpec) => `[${optionTerm(o)}]${o.repeatable ? '...' : ''}`;
  return [
    ...(command.arguments ?? []).map((a) => `<${a.name}>`),
    ...command.options.filter((o) => o.required).map(optionTerm),
    ...command.options.filter((o) => !o.required).map(optional),
  ].join(' ');
}

/** The whole command line: `npm run admin -- key revoke --workspace <id> --id <id>`. */
export function synopsis(cli: CliSpec, command: CommandSpec): string {
  return [cli.invocation, command.name, synopsisTail(command)].filter(Boolean).join(' ');
}

/** The line that sends someone who got it wrong to the help of the command (or group, or whole CLI) they meant. */
export function helpPointer(cli: CliSpec, words: string): string {
  const what = !words ? 'the commands' : cli.commands.some((c) => c.name === words) ? 'its options' : 'its commands';
  return `Run "${[cli.invocation, words, '--help'].filter(Boolean).join(' ')}" to see ${what}.`;
}

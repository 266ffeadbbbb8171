import { Command, CommanderError, Option } from 'commander';
import { helpPointer, optionTerm, type CliSpec, type CommandSpec, type OptionSpec, synopsisTail } from './spec';

/** The exit code of a command line given wrongly (unknown command or flag, missing or bad value). */
export const USAGE_EXIT_CODE = 2;

/** The options given, by long flag name (`dry-run`, not `dryRun`); a repeatable option's values as an array. */
export type OptionValues = Record<string, string | string[] | boolean | undefined>;

export type ParsedCommandLine<Name extends string> =
  | { kind: 'command'; command: Name; options: OptionValues; args: string[] }
  /** Help was asked for, or the command line was wrong: print `out` and `err` as they are, and exit with `code`. */
  | { kind: 'exit'; code: number; out: string; err: string };

export type CommandName<Cli extends CliSpec> = Cli['commands'][number]['name'];

/** The value of an option that takes one, or undefined when it was not given. */
export function textOption(options: OptionValues, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** The options given to `command`, by long flag name. */
function valuesOf(command: Command): OptionValues {
  const values: OptionValues = {};
  for (const o of command.options) {
    const value = command.getOptionValue(o.attributeName()) as OptionValues[string];
    if (value !== undefined) values[o.name()] = value;
  }
  return values;
}

function optionOf(spec: OptionSpec): Option {
  const option = new Option(spec.value || spec.choices ? `--${spec.name} <${spec.value ?? 'value'}>` : `--${spec.name}`, spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.default !== undefined) option.default(spec.default);
  if (spec.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  return option;
}

/** The words before a command's own name, for the lists in `--help` (`key create`, not `create`). */
function pathOf(command: Command): string {
  const words: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** Every command that runs something, under `command`: the lists in `--help` name these, not the groups. */
function leavesOf(command: Command): Command[] {
  return command.commands.flatMap((c) => (c.commands.length ? leavesOf(c) : [c]));
}

/**
 * A fresh commander program for `cli` (one per parse: commander keeps state between parses). Nothing in it
 * exits the process or writes to the terminal: output goes to `write`, and an exit is thrown as a CommanderError.
 */
function programOf(cli: CliSpec, write: { out: (s: string) => void; err: (s: string) => void }, chosen: (c: CommandSpec, options: OptionValues, args: string[]) => void): Command {
  const program = new Command(cli.invocation)
    .description(cli.summary)
    .helpCommand(false)
    .exitOverride()
    .configureOutput({ writeOut: write.out, writeErr: write.err })
    .configureHelp({
      visibleCommands: (cmd) => leavesOf(cmd),
      subcommandTerm: (cmd) => pathOf(cmd),
    })
    .usage('<command> [options]')
    .showHelpAfterError(helpPointer(cli, ''));
  if (cli.footer) program.addHelpText('after', `\n${cli.footer}`);
  for (const spec of cli.commands) {
    const words = spec.name.split(' ');
    let parent = program;
    for (const [i, word] of words.slice(0, -1).entries()) {
      const group = words.slice(0, i + 1).join(' ');
      parent = parent.commands.find((c) => c.name() === word)
        ?? parent.command(word).description(cli.groups[group] ?? '').usage('<command> [options]').showHelpAfterError(helpPointer(cli, group));
    }
    const leaf = parent.command(words.at(-1)!)
      .summary(spec.summary)
      .description(spec.summary)
      .usage(synopsisTail(spec))
      .showHelpAfterError(helpPointer(cli, spec.name));
    for (const a of spec.arguments ?? []) leaf.argument(`<${a.name}>`, a.description);
    for (const o of spec.options) leaf.addOption(optionOf(o));
    if (spec.help) leaf.addHelpText('after', `\n${spec.help}`);
    leaf.action(() => {
      // Checked here rather than as commander's mandatory options, so that a mistyped flag is named first.
      const given = valuesOf(leaf);
      const missing = spec.options.find((o) => o.required && given[o.name] === undefined);
      if (missing) leaf.error(`error: required option '${optionTerm(missing)}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
      chosen(spec, given, [...leaf.args]);
    });
  }
  return program;
}

/** Parses `argv` (the words after the program's name) against `cli`: the command to run, or what to print and the exit code. */
export function parseCommandLine<Cli extends CliSpec>(cli: Cli, argv: readonly string[]): ParsedCommandLine<CommandName<Cli>> {
  let out = '';
  let err = '';
  let result: ParsedCommandLine<CommandName<Cli>> | undefined;
  const program = programOf(cli, { out: (s) => (out += s), err: (s) => (err += s) }, (spec, options, args) => {
    result = { kind: 'command', command: spec.name as CommandName<Cli>, options, args };
  });
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { kind: 'exit', code: error.code === 'commander.helpDisplayed' ? 0 : USAGE_EXIT_CODE, out, err };
  }
  return result ?? { kind: 'exit', code: USAGE_EXIT_CODE, out, err };
}

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliReferencePath, REFERENCED_CLIS, repoRoot } from './cli-reference';
import { cliReference } from './cli/reference';

describe('the CLI reference', () => {
  it('is what `npm run docs:cli` writes now (docs/reference/cli.md)', async () => {
    expect(
      await readFile(path.join(repoRoot, cliReferencePath), 'utf8'),
      `${cliReferencePath} is out of date with the command definitions in tools/src/cli: run \`npm run docs:cli\` and commit the result`,
    ).toBe(cliReference(REFERENCED_CLIS));
  });

  it('has every command of both CLIs, with its synopsis and each of its options', () => {
    const page = cliReference(REFERENCED_CLIS);
    for (const { spec } of REFERENCED_CLIS) {
      for (const command of spec.commands) {
        expect(page, command.name).toContain(`\n### ${command.name}\n`);
        expect(page, command.name).toContain(`\n${spec.invocation} ${command.name}`);
        for (const o of command.options) expect(page, `${command.name} --${o.name}`).toMatch(new RegExp(`\\| \`--${o.name}\\b`));
      }
    }
  });
});

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { SkillError } from './errors';

export interface SkillReference {
  /** The reference file's name without `.md` (e.g. `signal-quality-checklist`). */
  name: string;
  body: string;
}

export interface BuiltInSkill {
  name: string;
  title: string;
  /** One sentence saying when to use the skill. */
  description: string;
  /** Markdown, frontmatter removed. */
  body: string;
  references: SkillReference[];
}

/** Where the built-in skills live: `libs/skills/skills/<name>.md` and `libs/skills/skills/<name>/*.md`. */
export const BUILT_IN_SKILLS_DIR = path.join(import.meta.dirname, '..', 'skills');

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;
const REQUIRED_KEYS = ['name', 'title', 'description'] as const;

/** Parses the small `key: value` frontmatter of a skill file. Values may be quoted. */
export function parseFrontmatter(text: string, file: string): { attributes: Record<string, string>; body: string } {
  const match = FRONTMATTER.exec(text);
  if (!match) throw new SkillError(`${file}: missing frontmatter (a --- block with name, title and description)`);
  const attributes: Record<string, string> = {};
  for (const [i, raw] of match[1]!.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new SkillError(`${file}: frontmatter line ${i + 1} is not "key: value"`);
    let value = line.slice(colon + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) value = value.slice(1, -1);
    attributes[line.slice(0, colon).trim()] = value;
  }
  return { attributes, body: text.slice(match[0].length).trim() + '\n' };
}

/**
 * Reads and validates every skill of a directory: each `<name>.md` must have frontmatter with a
 * `name` equal to its file name, a `title`, a `description`, and a body; `<name>/*.md` are its
 * reference files. Throws on the first broken file, so a bad skill fails at start, not when read.
 */
export function loadSkillsFromDirectory(dir: string): BuiltInSkill[] {
  const skills: BuiltInSkill[] = [];
  const files = readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
  for (const file of files) {
    const where = path.join(dir, file);
    const { attributes, body } = parseFrontmatter(readFileSync(where, 'utf8'), where);
    for (const key of REQUIRED_KEYS) {
      if (!attributes[key]) throw new SkillError(`${where}: frontmatter has no ${key}`);
    }
    const name = file.slice(0, -'.md'.length);
    if (attributes.name !== name) throw new SkillError(`${where}: frontmatter name "${attributes.name}" differs from the file name "${name}"`);
    if (body.trim() === '') throw new SkillError(`${where}: the skill has no body`);
    const referencesDir = path.join(dir, name);
    const references: SkillReference[] = [];
    if (existsSync(referencesDir) && statSync(referencesDir).isDirectory()) {
      for (const ref of readdirSync(referencesDir).filter((f) => f.endsWith('.md')).sort()) {
        const refBody = readFileSync(path.join(referencesDir, ref), 'utf8');
        if (refBody.trim() === '') throw new SkillError(`${path.join(referencesDir, ref)}: empty reference file`);
        references.push({ name: ref.slice(0, -'.md'.length), body: refBody });
      }
    }
    skills.push({ name, title: attributes.title!, description: attributes.description!, body, references });
  }
  return skills;
}

let cache: ReadonlyMap<string, BuiltInSkill> | undefined;

/** The built-in skills by name, read from disk and validated on first use, then kept. */
export function builtInSkills(): ReadonlyMap<string, BuiltInSkill> {
  cache ??= new Map(loadSkillsFromDirectory(BUILT_IN_SKILLS_DIR).map((s) => [s.name, s]));
  return cache;
}

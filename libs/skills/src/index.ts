export { SkillError, SkillNameTakenError, SkillNotFoundError, SkillValidationError } from './errors';
export {
  BUILT_IN_SKILLS_DIR,
  builtInSkills,
  loadSkillsFromDirectory,
  parseFrontmatter,
  type BuiltInSkill,
  type SkillReference,
} from './built-in';
export {
  SKILL_LIMITS,
  createWorkspaceSkill,
  deleteWorkspaceSkill,
  findSkills,
  readSkills,
  updateWorkspaceSkill,
  type CreateWorkspaceSkillInput,
  type ReadSkillsResult,
  type Skill,
  type SkillSource,
  type SkillSummary,
  type UpdateWorkspaceSkillInput,
  type WorkspaceSkill,
} from './skills';

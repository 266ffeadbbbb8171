export class SkillError extends Error {
  override name = 'SkillError';
}

/** Input that breaks a rule; `field` names the input field at fault. */
export class SkillValidationError extends SkillError {
  override name = 'SkillValidationError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** No workspace skill of that name in this workspace (another workspace's is answered alike). */
export class SkillNotFoundError extends SkillError {
  override name = 'SkillNotFoundError';
  constructor(readonly skillName: string) {
    super(`Skill ${skillName} does not exist in this workspace`);
  }
}

export class SkillNameTakenError extends SkillError {
  override name = 'SkillNameTakenError';
  constructor(readonly skillName: string) {
    super(`This workspace already has a skill named ${skillName}: update it instead`);
  }
}

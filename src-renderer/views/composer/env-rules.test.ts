import { describe, expect, it } from 'vitest';
import { envNameProblem, paramVariable } from './env-rules';

describe('env rules', () => {
  it('accepts variable names, refuses others and the reserved ones', () => {
    expect(envNameProblem('WANDB_API_KEY')).toBeNull();
    expect(envNameProblem('_x1')).toBeNull();
    expect(envNameProblem('1BAD')).toMatch(/not a variable name/);
    expect(envNameProblem('A-B')).toMatch(/not a variable name/);
    expect(envNameProblem('PATH')).toMatch(/reserved/);
    expect(envNameProblem('TENDER_X')).toMatch(/reserved/);
  });
  it('maps parameters like the agent', () => {
    expect(paramVariable('lr')).toBe('TENDER_PARAM_LR');
    expect(paramVariable('max-steps')).toBe('TENDER_PARAM_MAX_STEPS');
  });
});

import { describe, expect, it } from 'vitest';
import { parseEnvironmentAssignment, parseEnvironmentAssignments } from './environment-assignment.js';
import { CliError, CliErrorCode } from './errors.js';

describe('parseEnvironmentAssignment', () => {
  it('splits on the first = and keeps the rest of the value', () => {
    expect(parseEnvironmentAssignment('URL=a=b=c')).toEqual(['URL', 'a=b=c']);
  });

  it('allows an empty value when written KEY=', () => {
    expect(parseEnvironmentAssignment('EMPTY=')).toEqual(['EMPTY', '']);
  });

  it.each(['NOEQUALS', '=value', '', ' =x', 'A\0B=1', 'A=1\0'])('throws USAGE for %j', (assignment) => {
    try {
      parseEnvironmentAssignment(assignment);
      expect.unreachable();
    } catch (error) {
      expect(CliError.isInstance(error)).toBe(true);
      expect((error as CliError).code).toBe(CliErrorCode.Usage);
    }
  });
});

describe('parseEnvironmentAssignments', () => {
  it('lets a later assignment to the same key win', () => {
    expect(parseEnvironmentAssignments(['A=1', 'B=', 'A=2'])).toEqual({ A: '2', B: '' });
  });
});

import { describe, expect, it } from 'vitest';
import { checkInitialize, checkInitializeMessage, InitializeAnswers } from './initialize.js';

describe('checkInitialize', () => {
  it('tells the initialize request, one without a usable id, and anything else', () => {
    expect(checkInitialize('initialize', '0')).toEqual({ kind: 'initialize', id: '0' });
    expect(checkInitialize('initialize', 'null')).toEqual({ kind: 'missing-id' });
    expect(checkInitialize('initialize', undefined)).toEqual({ kind: 'missing-id' });
    expect(checkInitialize('session/new', '1')).toEqual({ kind: 'other' });
    expect(checkInitializeMessage({ jsonrpc: '2.0', id: 'a', method: 'initialize' })).toEqual({
      kind: 'initialize',
      id: '"a"',
    });
    expect(checkInitializeMessage({ jsonrpc: '2.0', id: null, method: 'initialize' })).toEqual({
      kind: 'missing-id',
    });
    expect(checkInitializeMessage([{ method: 'initialize', id: 1 }])).toEqual({ kind: 'other' });
  });
});

describe('InitializeAnswers', () => {
  it('is answered by a response carrying a waiting initialize id, once', () => {
    const answers = new InitializeAnswers();
    answers.request('1', '1.0');
    expect(answers.waiting.get('1')).toBe('1.0');
    expect(answers.answers('2')).toBe(false);
    expect(answers.answered).toBe(false);
    expect(answers.answers('1')).toBe(true);
    expect(answers.answered).toBe(true);
    expect(answers.answers('1')).toBe(false);
  });
});

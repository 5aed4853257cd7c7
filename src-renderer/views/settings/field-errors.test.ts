import { describe, expect, it } from 'vitest';
import { HostInput } from '../../../src-main/contract';
import { ApiError } from '../../api/backend';
import { errorByField, issuesByField } from './field-errors';

const FIELDS = ['name', 'host', 'port', 'user', 'identityFile'] as const;

describe('errors beside their fields', () => {
  it('puts the contract’s own issues by field, in plain words', () => {
    const parsed = HostInput.safeParse({ name: 'bad name', host: '', port: 70_000, user: 'me' });
    expect(parsed.success).toBe(false);
    const r = issuesByField(parsed.error!.issues, FIELDS);
    expect(r.fields).toEqual({
      name: 'letters, digits, . _ - only',
      host: 'required',
      port: 'at most 65535',
    });
    expect(r.general).toBeNull();
  });

  it('reads the fields a bad_request names', () => {
    const err = new ApiError({ code: 'bad_request', message: 'port: Too big; nickname: nope' });
    expect(errorByField(err, FIELDS)).toEqual({ fields: { port: 'Too big' }, general: 'nope' });
  });

  it('gives a conflict to the field that caused it, with its hint', () => {
    const err = new ApiError({
      code: 'conflict',
      message: 'a host named "a" exists',
      hint: 'pick another name',
    });
    expect(errorByField(err, FIELDS, 'name').fields.name).toBe(
      'a host named "a" exists. pick another name',
    );
    expect(errorByField(new Error('socket closed'), FIELDS)).toEqual({
      fields: {},
      general: 'socket closed',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { looksLikeSecretName } from './secret-names';

describe('looksLikeSecretName', () => {
  it.each([
    ['HF_TOKEN', true],
    ['TOKEN', true],
    ['OPENAI_API_KEY', true],
    ['WANDB_API_KEY', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['DB_PASSWORD', true],
    ['github_pat', true],
    ['GOOGLE_APPLICATION_CREDENTIALS', true],
    ['TOKENIZER', false],
    ['MONKEY', false],
    ['MAX_TOKENS_X', false],
    ['LR', false],
    ['CUDA_VISIBLE_DEVICES', false],
    ['AUTHOR', false],
    ['PWD', false],
  ])('%s → %s', (name, is) => expect(looksLikeSecretName(name)).toBe(is));
});

/** Words in a variable's name that say it holds a credential (`HF_TOKEN`, `OPENAI_API_KEY`,
 *  `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`): each a whole `_`-separated word, so `MONKEY`
 *  or `TOKENIZER` is not one. A false alarm costs a differently written flag; a miss puts
 *  a credential in `ps` and the ledger. */
const CREDENTIAL_WORD =
  /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|APIKEY|KEY|CREDENTIALS?|AUTH|PAT)(?:_|$)/i;

/** Whether a variable's name says it holds a credential. */
export function looksLikeSecretName(name: string): boolean {
  return CREDENTIAL_WORD.test(name);
}

/** A marketplace API's base URL as given (`TENDER_VASTAI_URL`, …): https, or plain http only
 *  to this machine (a fake, a local double); no credentials or query in it. The URL without
 *  a trailing slash, or what is wrong with it, naming the variable. */
export function parseBaseUrl(raw: string, variable: string): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: `${variable} is not a URL: "${raw}"` };
  }
  const isLocal = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLocal))
    return {
      problem: `${variable} must be https (plain http only to this machine): "${url.origin}"`,
    };
  if (url.username || url.password || url.search)
    return { problem: `${variable} must not carry credentials or a query` };
  return { url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

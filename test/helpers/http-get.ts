import { get } from 'node:http';

/** The body of a GET that answered 200; null for any other answer or no answer (a port
 *  nothing listens on, a forward that is closed). */
export function fetchText(url: string): Promise<string | null> {
  return new Promise((resolve) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 ? body : null));
    }).on('error', () => resolve(null));
  });
}

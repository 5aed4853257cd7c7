// `host_setup.append`'s fields, checked at the socket boundary.
import type { HostSetupAppend } from '../../wire/protocol';
import { RequestError, requiredString } from '../socket/request-checks';

export function parseHostSetupAppend(req: Record<string, unknown>): HostSetupAppend {
  const script = requiredString(req, 'script');
  const { name, refreshCapabilities } = req;
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    throw new RequestError('bad_request', '"name" must be a non-empty string');
  if (refreshCapabilities !== undefined && typeof refreshCapabilities !== 'boolean')
    throw new RequestError('bad_request', '"refreshCapabilities" must be a boolean');
  return {
    script,
    ...(name ? { name } : {}),
    ...(refreshCapabilities ? { refreshCapabilities } : {}),
  };
}

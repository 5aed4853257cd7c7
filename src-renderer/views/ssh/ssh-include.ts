import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SshIncludeView } from '../../../src-main/contract';
import { call } from '../../api/backend';

/** Whether the user's ssh reads Tender's entries: one query for Settings and the node
 *  panes, replaced by what install/uninstall answer. */
export const sshIncludeKey = ['sshConfig.get'] as const;

export function useSshInclude() {
  return useQuery({ queryKey: sshIncludeKey, queryFn: () => call('sshConfig.get', {}) });
}

export function useSshIncludeChange(): (install: boolean) => Promise<SshIncludeView> {
  const qc = useQueryClient();
  return async (install) => {
    const view = await call(install ? 'sshConfig.install' : 'sshConfig.uninstall', {});
    qc.setQueryData(sshIncludeKey, view);
    return view;
  };
}

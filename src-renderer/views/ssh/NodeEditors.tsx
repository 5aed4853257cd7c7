import { useQuery } from '@tanstack/react-query';
import type { NodeView } from '../../../src-main/contract';
import { call } from '../../api/backend';
import { EditorButtons } from './EditorButtons';

/** A node pane's "Your tools" row: its own alias `tender-<run>-<node>`. */
export function NodeEditors({ node }: { node: NodeView }): React.JSX.Element {
  const access = useQuery({
    // The entry follows the node: re-read when its stage or lease changes.
    queryKey: ['node.sshAccess', node.runId, node.logicalId, node.stage, node.leaseId],
    queryFn: () => call('node.sshAccess', { runId: node.runId, logicalId: node.logicalId }),
  });
  return <EditorButtons access={access} testId="node-editors" className="node-editors" />;
}

import { useQuery } from '@tanstack/react-query';
import type { RunView } from '../../../src-main/contract';
import { call } from '../../api/backend';
import { EditorButtons } from './EditorButtons';

/** The run header's "Your tools": the run's alias `tender-<run>`, its first node with an
 *  entry (what `tender open <run>` opens). */
export function RunEditors({ run }: { run: RunView }): React.JSX.Element {
  const access = useQuery({
    // The run alias follows its nodes: re-read when any node's stage or lease changes.
    queryKey: ['run.sshAccess', run.id, run.nodes.map((n) => `${n.stage}/${n.leaseId}`).join()],
    queryFn: () => call('run.sshAccess', { runId: run.id }),
  });
  return <EditorButtons access={access} testId="run-editors" className="run-editors" />;
}

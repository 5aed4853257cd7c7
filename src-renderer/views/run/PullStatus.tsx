import type { NodeView } from '../../../src-main/contract';
import { pullTitle, pullLineOf } from './provision-wait';

/** While a node's lease provisions: the provider's own words for it and, while its image is
 *  pulled, how far the pull has got (a bar where the words give it). The wait and when Tender
 *  gives up are beside it (ProvisionWait). */
export function PullStatus({ node }: { node: NodeView }): React.JSX.Element | null {
  const line = pullLineOf(node);
  if (!line || !node.pull) return null;
  const { percent } = node.pull;
  return (
    <span className="pane-pull" data-testid="pull-status" title={pullTitle(node.pull)}>
      {percent !== null && (
        <span className="pull-bar" aria-label={`${Math.floor(percent)}% pulled`}>
          <span style={{ width: `${Math.min(100, percent)}%` }} />
        </span>
      )}
      <span className="pull-line">{line}</span>
    </span>
  );
}

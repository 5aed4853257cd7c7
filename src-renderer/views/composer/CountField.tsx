import { useUi } from '../../store/ui';

/** How many nodes the pool asks for (1–64), with what a node is for this provider. */
export function CountField(props: { min?: number; hint: string }): React.JSX.Element {
  const count = useUi((s) => s.draft.count);
  const patch = useUi((s) => s.patchDraft);
  return (
    <div className="field">
      <label htmlFor="count">Nodes</label>
      <div className="row">
        <input
          id="count"
          className="input count-input tabular"
          type="number"
          min={props.min ?? 1}
          max={64}
          value={count}
          onChange={(e) =>
            patch({
              count: Math.min(
                64,
                Math.max(props.min ?? 1, Math.floor(Number(e.target.value) || 1)),
              ),
            })
          }
        />
        <span className="hint grow">{props.hint}</span>
      </div>
    </div>
  );
}

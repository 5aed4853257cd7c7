// Placeholder until the view lands (issue 5).
export function LedgerView(): React.JSX.Element {
  return <div className="page" />;
}

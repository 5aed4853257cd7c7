// Placeholder until the view lands (issue 5).
export function RunView(): React.JSX.Element {
  return <div className="page" />;
}

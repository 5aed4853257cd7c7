// Placeholder until the view lands (issue 5).
export function ComposerView(): React.JSX.Element {
  return <div className="page" />;
}

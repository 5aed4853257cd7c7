// Placeholder until the view lands (issue 5).
export function SettingsView(): React.JSX.Element {
  return <div className="page" />;
}

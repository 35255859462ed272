export function App() {
  return (
    <main>
      <h1>svc</h1>
      <p>Agent workflows.</p>
    </main>
  );
}
